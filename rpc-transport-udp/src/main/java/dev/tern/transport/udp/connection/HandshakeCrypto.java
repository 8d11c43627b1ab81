package dev.tern.transport.udp.connection;

import dev.tern.transport.udp.crypto.AeadAlgorithm;
import dev.tern.transport.udp.crypto.CryptoProvider;
import dev.tern.transport.udp.crypto.EpochPacketKeys;
import dev.tern.transport.udp.crypto.Hkdf;
import dev.tern.transport.udp.crypto.InitialSecrets;
import dev.tern.transport.udp.crypto.KeyLabels;
import dev.tern.transport.udp.handshake.ClientHandshake;
import dev.tern.transport.udp.handshake.ClientHandshakeConfig;
import dev.tern.transport.udp.handshake.HandshakeContext;
import dev.tern.transport.udp.handshake.HandshakeException;
import dev.tern.transport.udp.handshake.HandshakeSecrets;
import dev.tern.transport.udp.handshake.PinnedServerKey;
import dev.tern.transport.udp.handshake.ServerHandshake;
import dev.tern.transport.udp.handshake.ServerHandshakeConfig;
import dev.tern.transport.udp.handshake.TernHandshake;
import dev.tern.transport.udp.handshake.TicketStore;
import dev.tern.transport.udp.packet.ConnectionId;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.EnumSet;
import java.util.Random;

/**
 * The Noise handshake of the encrypted version as one connection runs it (docs/protocol.md §9.3,
 * docs/udp-crypto.md §5): the transport parameters travel as the encrypted payloads of Noise
 * messages 1 (the ClientHello, IK to the server's pinned static key) and 2 (the ServerHello), and
 * the finished handshake gives the 1-RTT secrets (forward secret through the ee DH). Also derives
 * the Initial keys from the client's first Destination Connection ID (RFC 9001 §5.2). Used on
 * the handshake path only: it allocates.
 */
final class HandshakeCrypto {
  private final ClientHandshake client;
  private final ServerHandshake server;

  private HandshakeCrypto(ClientHandshake client, ServerHandshake server) {
    this.client = client;
    this.server = server;
  }

  /**
   * The client's side, for the first INITIAL of {@code version} from {@code scid} to
   * {@code dcid}.
   *
   * @throws IllegalArgumentException if the configuration pins no server key
   */
  static HandshakeCrypto client(ConnectionConfig config, int version, ConnectionId dcid,
      ConnectionId scid) {
    if (config.pinnedServerKeys.isEmpty()) {
      throw new IllegalArgumentException(String.format("pinnedServerKeys is empty: a client of"
          + " the encrypted version 0x%08x needs the server's static public key, pinned with"
          + " ConnectionConfig.Builder.pinnedServerKeys (docs/udp-crypto.md §5.1)", version));
    }
    SessionTicket ticket = usableTicket(config);
    ClientHandshakeConfig hc = new ClientHandshakeConfig(config.cryptoProvider,
        ticket != null ? ticket.cipher() : config.handshakeCipher, config.pinnedServerKeys,
        config.clientStaticKey, secureRandom(config.random));
    if (ticket != null) {
      // IKpsk2 to the key the ticket was issued under (docs/udp-crypto.md §5.2).
      return new HandshakeCrypto(new ClientHandshake(hc, context(version, dcid, scid),
          ticket.serverKey(), ticket.resumption()), null);
    }
    return new HandshakeCrypto(new ClientHandshake(hc, context(version, dcid, scid), null), null);
  }

  /**
   * The configuration's resumption ticket if this client may use it: issued under a server key
   * the configuration still pins (a ticket never widens what the client trusts); else null.
   */
  static SessionTicket usableTicket(ConnectionConfig config) {
    SessionTicket t = config.resumptionTicket;
    if (t == null) {
      return null;
    }
    for (PinnedServerKey k : config.pinnedServerKeys) {
      if (k.keyId() == t.serverKeyId()
          && MessageDigest.isEqual(k.publicKey(), t.serverPublicKey())) {
        return t;
      }
    }
    return null;
  }

  /**
   * The server's side for a client whose first INITIAL of {@code version} came from
   * {@code clientScid} to {@code clientDcid}.
   *
   * @throws IllegalArgumentException if the configuration holds no server static key
   */
  static HandshakeCrypto server(ConnectionConfig config, int version, ConnectionId clientDcid,
      ConnectionId clientScid) {
    checkServer(config);
    ServerHandshakeConfig hc = new ServerHandshakeConfig(config.cryptoProvider,
        config.serverStaticKeys,
        EnumSet.of(AeadAlgorithm.AES_256_GCM, AeadAlgorithm.CHACHA20_POLY1305), config.clientAllowed,
        config.ticketStore,
        secureRandom(config.random));
    return new HandshakeCrypto(null,
        new ServerHandshake(hc, context(version, clientDcid, clientScid)));
  }

  /** Checks that a server configuration can answer encrypted handshakes. */
  static void checkServer(ConnectionConfig config) {
    if (config.serverStaticKeys.isEmpty()) {
      throw new IllegalArgumentException("serverStaticKeys is empty: a server of the encrypted"
          + " version needs its static key (ConnectionConfig.Builder.serverStaticKeys,"
          + " docs/udp-crypto.md §5.2)");
    }
  }

  private static HandshakeContext context(int version, ConnectionId dcid, ConnectionId scid) {
    return new HandshakeContext(version, bytes(dcid), bytes(scid));
  }

  /**
   * The Initial keys (RFC 9001 §5.2 with Tern's salt and labels, docs/udp-crypto.md §6) of the
   * connection whose client's first Destination Connection ID is {@code dcid}, for the client's
   * or the server's side. AES-128-GCM, as RFC 9001 §5 uses for Initial packets.
   */
  static EpochPacketKeys initialKeys(CryptoProvider provider, ConnectionId dcid,
      boolean isClient) {
    InitialSecrets s = InitialSecrets.tern(new Hkdf(provider), bytes(dcid));
    return EpochPacketKeys.create(provider, AeadAlgorithm.AES_128_GCM, KeyLabels.TERN_V1,
        isClient ? s.server : s.client, isClient ? s.client : s.server);
  }

  static byte[] bytes(ConnectionId cid) {
    ByteBuffer b = ByteBuffer.allocate(cid.length());
    cid.write(b);
    return b.array();
  }

  /**
   * Our handshake message carrying {@code params}: the ClientHello, or (after
   * {@link #readPeer}) the ServerHello, after which the server has its 1-RTT secrets.
   */
  byte[] writeLocal(byte[] params) throws HandshakeException {
    ByteBuffer out = ByteBuffer.allocate(TernHandshake.MAX_MESSAGE_BYTES);
    if (client != null) {
      client.writeClientHello(params, out);
    } else {
      server.writeServerHello(params, out);
    }
    byte[] message = new byte[out.position()];
    ((Buffer) out).flip();
    out.get(message);
    return message;
  }

  /**
   * Reads the peer's handshake message (from {@code message}'s position to its limit) and
   * returns the transport parameters inside it; after the ServerHello the client has its 1-RTT
   * secrets.
   *
   * @throws HandshakeException if the message does not authenticate or is malformed: the
   *     connection closes with the error's CRYPTO_ERROR code (RFC 9001 §4.8)
   */
  byte[] readPeer(ByteBuffer message) throws HandshakeException {
    return client != null ? client.readServerHello(message) : server.readClientHello(message);
  }

  /** Whether the handshake has finished (both messages). */
  boolean isFinished() {
    return client != null ? client.isFinished() : server.isFinished();
  }

  /**
   * The static public key the peer proved: at the server the client's (its identity, or a
   * per-connection key if anonymous), at the client the pinned server key it encrypted to; null
   * before the peer's message has been read.
   */
  byte[] peerStaticKey() {
    return client != null ? client.serverKey().publicKey() : server.clientStaticKey();
  }

  /**
   * The 0-RTT secret (docs/udp-crypto.md §6): the client's once it wrote an IKpsk2 ClientHello,
   * the server's once it read one; else null.
   */
  byte[] earlySecret() {
    return client != null ? client.earlySecret() : server.earlySecret();
  }

  /** The AEAD of the handshake (and of its 0-RTT and 1-RTT packets), once chosen. */
  AeadAlgorithm cipher() {
    return server != null ? server.cipher() : null;
  }

  /** At the server, whether a resumed ClientHello's ticket had been consumed before. */
  boolean ticketReused() {
    return server != null && server.ticketReused();
  }

  /** At the server, the ticket a resumed ClientHello named; else null. */
  TicketStore.Stored resumedTicket() {
    return server != null ? server.resumedTicket() : null;
  }

  /** The client's handshake (for its static key and server key), or null at the server. */
  ClientHandshake clientSide() {
    return client;
  }

  /** The finished handshake's secrets. */
  HandshakeSecrets secrets() {
    return client != null ? client.secrets() : server.secrets();
  }

  /**
   * {@code random} as the {@link SecureRandom} the handshake draws its ephemeral keys from: the
   * configuration's default source itself, or, for a simulation seeded with
   * {@link ConnectionConfig#withDeterministicRandom}, an adapter over the seeded source so that a
   * seed replays the handshake's keys too.
   */
  static SecureRandom secureRandom(Random random) {
    return random instanceof SecureRandom ? (SecureRandom) random : new Seeded(random);
  }

  /** A deterministic stand-in for tests and the simulator; never a deployed endpoint's. */
  private static final class Seeded extends SecureRandom {
    private static final long serialVersionUID = 1L;
    private final Random source;

    Seeded(Random source) {
      super(new byte[0]); // the seed is unused: every byte comes from source
      this.source = source;
    }

    @Override
    public synchronized void nextBytes(byte[] bytes) {
      if (source != null) { // null only while SecureRandom's constructor runs
        source.nextBytes(bytes);
      }
    }

    @Override
    public synchronized void setSeed(long seed) {
      // ignored: the injected source is the seed
    }
  }
}
