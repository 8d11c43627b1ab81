package dev.tern.transport.udp.handshake;

import dev.tern.transport.udp.connection.TransportParameters;
import dev.tern.transport.udp.crypto.AeadAlgorithm;
import dev.tern.transport.udp.crypto.CryptoProvider;
import dev.tern.transport.udp.crypto.TestProviders;
import dev.tern.transport.udp.packet.ConnectionId;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/** Keys, configurations and message builders shared by the handshake tests. */
final class Peers {
  static final SecureRandom RANDOM = new SecureRandom();
  static final byte[] DCID = TestProviders.hex("8394c8f03e515708");
  static final byte[] SCID = TestProviders.hex("0102030405060708");
  static final HandshakeContext CONTEXT = new HandshakeContext(0x544e0001, DCID, SCID);

  private Peers() {}

  /** Each provider with each handshake cipher. */
  static Stream<Arguments> providersAndCiphers() {
    return TestProviders.both().flatMap(p -> Stream.of(AeadAlgorithm.CHACHA20_POLY1305,
        AeadAlgorithm.AES_256_GCM).map(c -> Arguments.of(p, c)));
  }

  static byte[] privateKey() {
    byte[] k = new byte[32];
    RANDOM.nextBytes(k);
    return k;
  }

  /** Encoded transport parameters, as the connection sends them. */
  static byte[] params(int type, byte cidByte) {
    TransportParameters p = new TransportParameters();
    p.messageType = type;
    byte[] cid = new byte[8];
    java.util.Arrays.fill(cid, cidByte);
    p.initialSourceConnectionId = ConnectionId.of(cid);
    p.rpcVersions = new long[] {1, 2};
    ByteBuffer b = ByteBuffer.allocate(TransportParameters.MAX_MESSAGE_BYTES);
    p.encode(b);
    b.flip();
    byte[] out = new byte[b.remaining()];
    b.get(out);
    return out;
  }

  static byte[] bytes(ByteBuffer written) {
    ByteBuffer b = written.duplicate().flip();
    byte[] out = new byte[b.remaining()];
    b.get(out);
    return out;
  }

  /** An in-memory single-use ticket store. */
  static final class MemoryTickets implements TicketStore {
    final Map<String, Stored> tickets = new HashMap<>();
    final Map<String, Boolean> used = new HashMap<>();

    void put(byte[] id, byte[] psk, byte[] clientPublic) {
      tickets.put(TestProviders.hex(id), new Stored(psk, clientPublic, 0));
    }

    @Override
    public Stored find(byte[] ticketId) {
      return tickets.get(TestProviders.hex(ticketId));
    }

    @Override
    public boolean consume(byte[] ticketId) {
      return used.put(TestProviders.hex(ticketId), true) == null;
    }
  }

  /** A server with its keys and configuration. */
  static final class Server {
    final CryptoProvider provider;
    final List<ServerStaticKey> keys;
    final MemoryTickets tickets = new MemoryTickets();
    ServerHandshakeConfig config;

    Server(CryptoProvider provider, AeadAlgorithm cipher, ServerStaticKey... keys) {
      this.provider = provider;
      this.keys = List.of(keys);
      this.config = new ServerHandshakeConfig(provider, this.keys, Set.of(cipher), null,
          tickets, RANDOM);
    }

    PinnedServerKey pin(int index) {
      ServerStaticKey k = keys.get(index);
      return new PinnedServerKey(k.keyId(), provider.x25519().publicKey(k.privateKey()));
    }

    ServerHandshake handshake() {
      return new ServerHandshake(config, CONTEXT);
    }
  }

  static ClientHandshakeConfig client(CryptoProvider p, AeadAlgorithm cipher, byte[] staticKey,
      PinnedServerKey... pins) {
    return new ClientHandshakeConfig(p, cipher, List.of(pins), staticKey, RANDOM);
  }

  /** A ClientHello from {@code c}. */
  static byte[] hello(ClientHandshake c) throws HandshakeException {
    ByteBuffer out = ByteBuffer.allocate(TernHandshake.MAX_MESSAGE_BYTES);
    c.writeClientHello(params(TransportParameters.CLIENT_HELLO, (byte) 1), out);
    return bytes(out);
  }

  /** The ServerHello answering {@code clientHello}. */
  static byte[] answer(ServerHandshake s, byte[] clientHello) throws HandshakeException {
    s.readClientHello(ByteBuffer.wrap(clientHello));
    ByteBuffer out = ByteBuffer.allocate(TernHandshake.MAX_MESSAGE_BYTES);
    s.writeServerHello(params(TransportParameters.SERVER_HELLO, (byte) 2), out);
    return bytes(out);
  }
}
