package dev.tern.transport.udp.handshake;

import static dev.tern.transport.udp.handshake.Peers.answer;
import static dev.tern.transport.udp.handshake.Peers.hello;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import dev.tern.transport.udp.crypto.AeadAlgorithm;
import dev.tern.transport.udp.crypto.CryptoProvider;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A handshake message altered in any bit, cut short, lengthened or replayed never completes a
 * handshake, and fails with a {@link HandshakeException}, never another exception type.
 */
class HandshakeTamperingTest {

  private static byte[] flip(byte[] m, int bit) {
    byte[] c = m.clone();
    c[bit / 8] ^= (byte) (0x80 >>> (bit % 8));
    return c;
  }

  /** Feeds {@code message} to {@code read}, which must throw a HandshakeException. */
  private static HandshakeError refused(Read read, byte[] message, String what) {
    try {
      read.read(ByteBuffer.wrap(message));
    } catch (HandshakeException e) {
      return e.error();
    } catch (RuntimeException e) {
      throw new AssertionError(what + " threw " + e + " instead of a HandshakeException", e);
    }
    fail(what + " was accepted");
    return null;
  }

  interface Read {
    byte[] read(ByteBuffer in) throws HandshakeException;
  }

  /** A server and a resumption ticket for {@code client}'s key. */
  private static ResumptionTicket ticketFor(Peers.Server server, CryptoProvider p,
      byte[] clientKey) {
    byte[] psk = Peers.privateKey();
    byte[] id = {1, 2, 3};
    server.tickets.put(id, psk, p.x25519().publicKey(clientKey));
    return new ResumptionTicket(id, psk, clientKey);
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.handshake.Peers#providersAndCiphers")
  void everyBitOfAClientHelloMatters(CryptoProvider p, AeadAlgorithm cipher) throws Exception {
    for (boolean resume : new boolean[] {false, true}) {
      Peers.Server server = new Peers.Server(p, cipher,
          new ServerStaticKey(1, Peers.privateKey()));
      server.config = new ServerHandshakeConfig(p, server.keys,
          EnumSet.of(AeadAlgorithm.CHACHA20_POLY1305, AeadAlgorithm.AES_256_GCM), null,
          server.tickets, Peers.RANDOM);
      byte[] clientKey = Peers.privateKey();
      ClientHandshake c = new ClientHandshake(Peers.client(p, cipher, clientKey, server.pin(0)),
          Peers.CONTEXT, resume ? ticketFor(server, p, clientKey) : null);
      byte[] ch = hello(c);
      Set<HandshakeError> seen = EnumSet.noneOf(HandshakeError.class);
      // Every bit of the header (type, cipher, key id, ticket), then one bit of every byte.
      int headerBits = (resume ? 4 + 3 : 3) * 8;
      for (int bit = 0; bit < ch.length * 8; bit = bit < headerBits ? bit + 1 : bit + 9) {
        ServerHandshake s = server.handshake();
        seen.add(refused(s::readClientHello, flip(ch, bit), "ClientHello bit " + bit));
        assertThat(s.isFinished()).isFalse();
      }
      assertThat(seen).contains(HandshakeError.AUTHENTICATION_FAILED);
      // The untouched message is still good: the failures were the flips'.
      answer(server.handshake(), ch);
    }
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.handshake.Peers#providersAndCiphers")
  void everyBitOfAServerHelloMatters(CryptoProvider p, AeadAlgorithm cipher) throws Exception {
    Peers.Server server = new Peers.Server(p, cipher, new ServerStaticKey(1, Peers.privateKey()));
    ClientHandshakeConfig config = Peers.client(p, cipher, null, server.pin(0));
    // A full handshake per flip: one bit of every byte, a different bit in each.
    int length = -1;
    for (int i = 0; length < 0 || i < length; i++) {
      int bit = i * 8 + i % 8;
      ClientHandshake c = new ClientHandshake(config, Peers.CONTEXT, null);
      byte[] sh = answer(server.handshake(), hello(c));
      length = sh.length;
      refused(c::readServerHello, flip(sh, bit), "ServerHello bit " + bit);
      assertThat(c.isFinished()).isFalse();
      // A failed handshake stays failed, even for the genuine message afterwards.
      refused(c::readServerHello, sh, "the genuine ServerHello after a forged one");
    }
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.handshake.Peers#providersAndCiphers")
  void truncatedAndLengthenedMessagesFailCleanly(CryptoProvider p, AeadAlgorithm cipher)
      throws Exception {
    Peers.Server server = new Peers.Server(p, cipher, new ServerStaticKey(1, Peers.privateKey()));
    ClientHandshakeConfig config = Peers.client(p, cipher, null, server.pin(0));
    byte[] ch = hello(new ClientHandshake(config, Peers.CONTEXT, null));
    for (int len = 0; len < ch.length; len++) {
      refused(server.handshake()::readClientHello, Arrays.copyOf(ch, len),
          "ClientHello cut to " + len);
    }
    refused(server.handshake()::readClientHello, Arrays.copyOf(ch, ch.length + 1),
        "ClientHello with a byte more");
    refused(server.handshake()::readClientHello, new byte[TernHandshake.MAX_MESSAGE_BYTES + 1],
        "an oversized ClientHello");
    ClientHandshake probe = new ClientHandshake(config, Peers.CONTEXT, null);
    int shLength = answer(server.handshake(), hello(probe)).length;
    for (int len = 0; len <= shLength + 1; len++) {
      if (len == shLength) {
        continue;
      }
      ClientHandshake c = new ClientHandshake(config, Peers.CONTEXT, null);
      byte[] sh = answer(server.handshake(), hello(c));
      refused(c::readServerHello, Arrays.copyOf(sh, len), "ServerHello of " + len + " bytes");
    }
  }

  @ParameterizedTest
  @MethodSource("dev.tern.transport.udp.handshake.Peers#providersAndCiphers")
  void repeatedAndMisdirectedMessagesAreProtocolErrors(CryptoProvider p, AeadAlgorithm cipher)
      throws Exception {
    Peers.Server server = new Peers.Server(p, cipher, new ServerStaticKey(1, Peers.privateKey()));
    ClientHandshake c = new ClientHandshake(Peers.client(p, cipher, null, server.pin(0)),
        Peers.CONTEXT, null);
    ServerHandshake s = server.handshake();
    byte[] ch = hello(c);
    ClientHandshake mirrored = new ClientHandshake(Peers.client(p, cipher, null, server.pin(0)),
        Peers.CONTEXT, null);
    hello(mirrored);
    assertThat(refused(mirrored::readServerHello, ch, "a ClientHello sent back to a client"))
        .isEqualTo(HandshakeError.UNEXPECTED_MESSAGE);
    byte[] sh = answer(s, ch);
    assertThat(refused(s::readClientHello, ch, "the ClientHello again"))
        .isEqualTo(HandshakeError.UNEXPECTED_MESSAGE);
    assertThat(refused(server.handshake()::readClientHello, sh, "a ServerHello to a server"))
        .isEqualTo(HandshakeError.UNEXPECTED_MESSAGE);
    c.readServerHello(ByteBuffer.wrap(sh));
    assertThat(refused(c::readServerHello, sh, "the ServerHello again"))
        .isEqualTo(HandshakeError.UNEXPECTED_MESSAGE);
    ClientHandshake early = new ClientHandshake(Peers.client(p, cipher, null, server.pin(0)),
        Peers.CONTEXT, null);
    assertThat(refused(early::readServerHello, sh, "a ServerHello before the ClientHello"))
        .isEqualTo(HandshakeError.UNEXPECTED_MESSAGE);
    assertThatThrownBy(() -> s.writeServerHello(new byte[0], ByteBuffer.allocate(200)))
        .isInstanceOf(IllegalStateException.class);
  }
}
