package dev.tern.transport.udp.handshake;

import static dev.tern.transport.udp.handshake.Peers.answer;
import static dev.tern.transport.udp.handshake.Peers.hello;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.transport.udp.connection.TransportParameters;
import dev.tern.transport.udp.crypto.AeadAlgorithm;
import dev.tern.transport.udp.crypto.CryptoProvider;
import dev.tern.transport.udp.crypto.CryptoProviders;
import dev.tern.transport.udp.crypto.EpochPacketKeys;
import dev.tern.transport.udp.crypto.OneRttPacketKeys;
import dev.tern.transport.udp.crypto.PacketKeys;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Tern's handshake end to end: what it carries, exports and authenticates. */
class TernHandshakeTest {

  /** Seals a short-header packet with {@code from} and checks {@code to} opens it. */
  static void assertPacketCrosses(PacketKeys from, PacketKeys to, long pn) {
    ByteBuffer b = ByteBuffer.allocate(100);
    b.put((byte) 0x41).putLong(42L);
    int pnOffset = b.position();
    b.putShort((short) pn).put(new byte[] {7, 7, 7, 7});
    assertThat(from.seal(b, 0, pnOffset + 2, pn)).isTrue();
    from.applyHeaderProtection(b, 0, pnOffset);
    int end = b.position();
    assertThat(to.removeHeaderProtection(b, 0, pnOffset, end)).isEqualTo(2);
    assertThat(to.open(b, 0, pnOffset + 2, end, pn)).isEqualTo(pnOffset + 6);
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.handshake.Peers#providersAndCiphers")
  void aHandshakeCarriesTransportParametersAndExportsOneSetOfSecrets(CryptoProvider p,
      AeadAlgorithm cipher) throws Exception {
    Peers.Server server = new Peers.Server(p, cipher, new ServerStaticKey(1, Peers.privateKey()));
    ClientHandshake c = new ClientHandshake(Peers.client(p, cipher, null, server.pin(0)),
        Peers.CONTEXT, null);
    ServerHandshake s = server.handshake();
    byte[] ch = hello(c);
    byte[] clientParams = s.readClientHello(ByteBuffer.wrap(ch));
    TransportParameters decoded = new TransportParameters();
    assertThat(decoded.decode(ByteBuffer.wrap(clientParams))).isNull();
    assertThat(decoded.rpcVersions).containsExactly(1, 2);
    ByteBuffer sh = ByteBuffer.allocate(TernHandshake.MAX_MESSAGE_BYTES);
    s.writeServerHello(Peers.params(TransportParameters.SERVER_HELLO, (byte) 2), sh);
    byte[] serverParams = c.readServerHello(sh.flip());
    assertThat(serverParams).isEqualTo(Peers.params(TransportParameters.SERVER_HELLO, (byte) 2));
    assertThat(c.earlySecret()).as("no 0-RTT without a ticket").isNull();

    HandshakeSecrets cs = c.secrets();
    HandshakeSecrets ss = s.secrets();
    assertThat(cs.handshakeHash()).isEqualTo(ss.handshakeHash());
    assertThat(cs.client1RttSecret()).isEqualTo(ss.client1RttSecret());
    assertThat(cs.server1RttSecret()).isEqualTo(ss.server1RttSecret());
    assertThat(cs.clientHandshakeSecret()).isEqualTo(ss.clientHandshakeSecret());
    assertThat(List.of(cs.client1RttSecret(), cs.server1RttSecret(),
        cs.clientHandshakeSecret(), cs.serverHandshakeSecret()).stream().map(Arrays::toString)
        .distinct().count()).as("four distinct secrets").isEqualTo(4);

    assertPacketCrosses(cs.handshakeKeys(true), ss.handshakeKeys(false), 1);
    assertPacketCrosses(ss.handshakeKeys(false), cs.handshakeKeys(true), 1);
    OneRttPacketKeys c1 = cs.oneRttKeys(true);
    OneRttPacketKeys s1 = ss.oneRttKeys(false);
    assertPacketCrosses(c1, s1, 5);
    assertPacketCrosses(s1, c1, 5);
    assertThat(s.clientStaticKey()).isEqualTo(p.x25519().publicKey(c.staticPrivateKey()));
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.handshake.Peers#providersAndCiphers")
  void twoHandshakesWithTheSameStaticKeysShareNoTrafficSecret(CryptoProvider p,
      AeadAlgorithm cipher) throws Exception {
    // Forward secrecy: the 1-RTT secrets come from fresh ephemeral keys every time.
    Peers.Server server = new Peers.Server(p, cipher, new ServerStaticKey(1, Peers.privateKey()));
    ClientHandshakeConfig config = Peers.client(p, cipher, Peers.privateKey(), server.pin(0));
    byte[][] secrets = new byte[2][];
    for (int i = 0; i < 2; i++) {
      ClientHandshake c = new ClientHandshake(config, Peers.CONTEXT, null);
      c.readServerHello(ByteBuffer.wrap(answer(server.handshake(), hello(c))));
      secrets[i] = c.secrets().client1RttSecret();
    }
    assertThat(secrets[0]).isNotEqualTo(secrets[1]);
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.handshake.Peers#providersAndCiphers")
  void aTicketResumesWithZeroRttKeysOnceAndOnlyForItsClient(CryptoProvider p,
      AeadAlgorithm cipher) throws Exception {
    Peers.Server server = new Peers.Server(p, cipher, new ServerStaticKey(1, Peers.privateKey()));
    ClientHandshakeConfig config = Peers.client(p, cipher, null, server.pin(0));
    ClientHandshake first = new ClientHandshake(config, Peers.CONTEXT, null);
    ServerHandshake firstServer = server.handshake();
    first.readServerHello(ByteBuffer.wrap(answer(firstServer, hello(first))));
    // The server issues a ticket on the first connection.
    byte[] ticketId = {9, 8, 7, 6};
    byte[] nonce = {0};
    server.tickets.put(ticketId, firstServer.secrets().ticketPsk(nonce),
        firstServer.clientStaticKey());
    ResumptionTicket ticket = new ResumptionTicket(ticketId,
        first.secrets().ticketPsk(nonce), first.staticPrivateKey());

    ClientHandshake resumed = new ClientHandshake(config, Peers.CONTEXT, ticket);
    ServerHandshake resumedServer = server.handshake();
    byte[] ch = hello(resumed);
    assertThat(ch[0]).isEqualTo((byte) TernHandshake.CLIENT_HELLO_IKPSK2);
    resumedServer.readClientHello(ByteBuffer.wrap(ch));
    assertThat(resumedServer.resumed()).isTrue();
    assertThat(resumed.earlySecret()).isNotNull().isEqualTo(resumedServer.earlySecret());
    assertPacketCrosses(HandshakeSecrets.earlyDataKeys(p, cipher, resumed.earlySecret(), true),
        HandshakeSecrets.earlyDataKeys(p, cipher, resumedServer.earlySecret(), false), 0);
    ByteBuffer sh = ByteBuffer.allocate(TernHandshake.MAX_MESSAGE_BYTES);
    resumedServer.writeServerHello(new byte[] {1}, sh);
    assertThat(resumed.readServerHello(sh.flip())).containsExactly(1);
    assertThat(resumed.secrets().client1RttSecret())
        .isEqualTo(resumedServer.secrets().client1RttSecret());

    assertThat(resumedServer.ticketReused()).isFalse();

    // RFC 8446 §8: the same ClientHello again (a replay) finds its ticket used: the handshake
    // still authenticates with it, and the server knows to refuse its early data.
    ServerHandshake replayed = server.handshake();
    replayed.readClientHello(ByteBuffer.wrap(ch));
    assertThat(replayed.resumed()).isTrue();
    assertThat(replayed.ticketReused()).isTrue();

    // Someone else who saw the ticket id cannot use it with their own key.
    server.tickets.put(new byte[] {5}, new byte[32], firstServer.clientStaticKey());
    ClientHandshake thief = new ClientHandshake(config, Peers.CONTEXT,
        new ResumptionTicket(new byte[] {5}, new byte[32], Peers.privateKey()));
    assertThatThrownBy(() -> server.handshake().readClientHello(ByteBuffer.wrap(hello(thief))))
        .isInstanceOf(HandshakeException.class)
        .hasMessageContaining("issued to another client key");
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.handshake.Peers#providersAndCiphers")
  void aRotatedServerAcceptsClientsPinningEitherKey(CryptoProvider p, AeadAlgorithm cipher)
      throws Exception {
    Peers.Server server = new Peers.Server(p, cipher, new ServerStaticKey(1, Peers.privateKey()),
        new ServerStaticKey(2, Peers.privateKey()));
    for (int i = 0; i < 2; i++) {
      ClientHandshake c = new ClientHandshake(Peers.client(p, cipher, null, server.pin(i)),
          Peers.CONTEXT, null);
      ServerHandshake s = server.handshake();
      c.readServerHello(ByteBuffer.wrap(answer(s, hello(c))));
      assertThat(s.keyId()).isEqualTo(i + 1);
    }
    Peers.Server retired = new Peers.Server(p, cipher, new ServerStaticKey(3, Peers.privateKey()));
    ClientHandshake stale = new ClientHandshake(Peers.client(p, cipher, null, server.pin(0)),
        Peers.CONTEXT, null);
    assertThatThrownBy(() -> retired.handshake().readClientHello(ByteBuffer.wrap(hello(stale))))
        .isInstanceOf(HandshakeException.class)
        .hasMessageContaining("server key id 1, which this server does not hold");
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.handshake.Peers#providersAndCiphers")
  void aWrongPinnedKeyFailsOnBothSidesWithAClearError(CryptoProvider p, AeadAlgorithm cipher)
      throws Exception {
    Peers.Server real = new Peers.Server(p, cipher, new ServerStaticKey(1, Peers.privateKey()));
    Peers.Server impostor = new Peers.Server(p, cipher,
        new ServerStaticKey(1, Peers.privateKey()));
    ClientHandshake c = new ClientHandshake(Peers.client(p, cipher, null, real.pin(0)),
        Peers.CONTEXT, null);
    byte[] ch = hello(c);
    assertThatThrownBy(() -> impostor.handshake().readClientHello(ByteBuffer.wrap(ch)))
        .isInstanceOf(HandshakeException.class)
        .hasMessageContaining("does not decrypt with server key 1")
        .satisfies(e -> assertThat(((HandshakeException) e).error().wireCode()).isEqualTo(0x114));
    // An impostor's own ServerHello (to another client of its own) does not fool this client.
    ClientHandshake other = new ClientHandshake(Peers.client(p, cipher, null, impostor.pin(0)),
        Peers.CONTEXT, null);
    byte[] forged = answer(impostor.handshake(), hello(other));
    assertThatThrownBy(() -> c.readServerHello(ByteBuffer.wrap(forged)))
        .isInstanceOf(HandshakeException.class)
        .hasMessageContaining("does not authenticate with pinned server key 1");
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.handshake.Peers#providersAndCiphers")
  void theServerAdmitsOnlyAllowedClientKeys(CryptoProvider p, AeadAlgorithm cipher)
      throws Exception {
    Peers.Server server = new Peers.Server(p, cipher, new ServerStaticKey(1, Peers.privateKey()));
    byte[] alice = Peers.privateKey();
    byte[] alicePublic = p.x25519().publicKey(alice);
    server.config = new ServerHandshakeConfig(p, server.keys, Set.of(cipher),
        k -> Arrays.equals(k, alicePublic), null, Peers.RANDOM);
    ClientHandshake a = new ClientHandshake(Peers.client(p, cipher, alice, server.pin(0)),
        Peers.CONTEXT, null);
    ServerHandshake s = server.handshake();
    a.readServerHello(ByteBuffer.wrap(answer(s, hello(a))));
    assertThat(s.clientStaticKey()).isEqualTo(alicePublic);
    ClientHandshake anonymous = new ClientHandshake(Peers.client(p, cipher, null, server.pin(0)),
        Peers.CONTEXT, null);
    assertThatThrownBy(() -> server.handshake().readClientHello(
        ByteBuffer.wrap(hello(anonymous))))
        .isInstanceOf(HandshakeException.class)
        .satisfies(e -> assertThat(((HandshakeException) e).error())
            .isEqualTo(HandshakeError.CLIENT_NOT_ALLOWED));
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.handshake.Peers#providersAndCiphers")
  void thePrologueBindsVersionAndConnectionIds(CryptoProvider p, AeadAlgorithm cipher)
      throws Exception {
    Peers.Server server = new Peers.Server(p, cipher, new ServerStaticKey(1, Peers.privateKey()));
    for (HandshakeContext seen : List.of(new HandshakeContext(0x544e0002, Peers.DCID, Peers.SCID),
        new HandshakeContext(0x544e0001, Peers.SCID, Peers.DCID))) {
      ClientHandshake c = new ClientHandshake(Peers.client(p, cipher, null, server.pin(0)),
          Peers.CONTEXT, null);
      ServerHandshake s = new ServerHandshake(server.config, seen);
      assertThatThrownBy(() -> s.readClientHello(ByteBuffer.wrap(hello(c))))
          .isInstanceOf(HandshakeException.class)
          .satisfies(e -> assertThat(((HandshakeException) e).error())
              .isEqualTo(HandshakeError.AUTHENTICATION_FAILED));
    }
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.handshake.Peers#providersAndCiphers")
  void aCipherTheServerRefusesIsNamed(CryptoProvider p, AeadAlgorithm cipher) throws Exception {
    AeadAlgorithm other = cipher == AeadAlgorithm.AES_256_GCM ? AeadAlgorithm.CHACHA20_POLY1305
        : AeadAlgorithm.AES_256_GCM;
    Peers.Server server = new Peers.Server(p, other, new ServerStaticKey(1, Peers.privateKey()));
    ClientHandshake c = new ClientHandshake(Peers.client(p, cipher, null, server.pin(0)),
        Peers.CONTEXT, null);
    assertThatThrownBy(() -> server.handshake().readClientHello(ByteBuffer.wrap(hello(c))))
        .isInstanceOf(HandshakeException.class).hasMessageContaining("cipher " + cipher);
  }

  @Test
  void aJdkClientAndABouncyCastleServerAgree() throws Exception {
    CryptoProvider jdk = CryptoProviders.byName("jdk");
    CryptoProvider bc = CryptoProviders.byName("bc");
    for (AeadAlgorithm cipher : List.of(AeadAlgorithm.CHACHA20_POLY1305,
        AeadAlgorithm.AES_256_GCM)) {
      Peers.Server server = new Peers.Server(bc, cipher,
          new ServerStaticKey(1, Peers.privateKey()));
      ClientHandshake c = new ClientHandshake(Peers.client(jdk, cipher, null, server.pin(0)),
          Peers.CONTEXT, null);
      ServerHandshake s = server.handshake();
      c.readServerHello(ByteBuffer.wrap(answer(s, hello(c))));
      EpochPacketKeys hs = c.secrets().handshakeKeys(true);
      assertPacketCrosses(hs, s.secrets().handshakeKeys(false), 3);
      assertPacketCrosses(c.secrets().oneRttKeys(true), s.secrets().oneRttKeys(false), 3);
    }
  }
}
