package dev.tern.transport.udp.connection;

import dev.tern.transport.udp.crypto.AeadAlgorithm;
import dev.tern.transport.udp.handshake.ClientHandshake;
import dev.tern.transport.udp.handshake.ClientHandshakeConfig;
import dev.tern.transport.udp.handshake.HandshakeContext;
import dev.tern.transport.udp.handshake.HandshakeException;
import dev.tern.transport.udp.packet.ConnectionId;
import dev.tern.transport.udp.packet.PacketProtection;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Keys a test peer holds to forge a client's packets for a server under test: the Initial keys
 * anyone can derive from the client's first Destination Connection ID (RFC 9001 §5.2), a real
 * Noise ClientHello to the test server key ({@link TestKeys}), and the 1-RTT keys of the client
 * side of a server connection whose handshake has finished (as the client itself holds them).
 */
public final class PeerKeys {
  private PeerKeys() {}

  /** The client's Initial keys (seal: client to server) for {@code originalDcid}. */
  public static PacketProtection clientInitialKeys(ConnectionConfig config,
      ConnectionId originalDcid) {
    return HandshakeCrypto.initialKeys(config.cryptoProvider, originalDcid, true);
  }

  /**
   * The client's Initial keys of the connection {@code server} (from the client's original
   * Destination Connection ID, whatever ID later packets name), or null for version 1.
   */
  public static PacketProtection clientInitialKeys(Connection server) {
    return server.keys.crypto == null ? null
        : HandshakeCrypto.initialKeys(server.config.cryptoProvider, server.originalDcid, true);
  }

  /** Whether {@code server}'s client first wrote to the ID at {@code offset} of {@code buf}. */
  public static boolean originalDcidMatches(Connection server, ByteBuffer buf, int offset,
      int length) {
    return server.originalDcid.matches(buf, offset, length);
  }

  /**
   * The client's 1-RTT keys of the connection {@code server} (a server connection), derived
   * anew from its finished handshake so that using them leaves the server's keys untouched; null
   * before the handshake has finished or for version 1.
   */
  public static PacketProtection clientOneRttKeys(Connection server) {
    if (server.isClient || server.keys.crypto == null || !server.keys.crypto.isFinished()) {
      return null;
    }
    return server.keys.crypto.secrets().oneRttKeys(true);
  }

  /**
   * A Noise ClientHello (IK to the test server key) of {@code version} for a first INITIAL from
   * {@code scid} to {@code dcid}, carrying {@code params}; its ephemeral key comes from
   * {@code seed}, so the same arguments give the same bytes.
   */
  public static byte[] clientHello(ConnectionConfig config, int version, ConnectionId dcid,
      ConnectionId scid, byte[] params, long seed) {
    ClientHandshakeConfig hc = new ClientHandshakeConfig(config.cryptoProvider,
        AeadAlgorithm.AES_256_GCM, List.of(TestKeys.pinned()), null,
        HandshakeCrypto.secureRandom(new Random(seed)));
    ClientHandshake h = new ClientHandshake(hc, new HandshakeContext(version,
        HandshakeCrypto.bytes(dcid), HandshakeCrypto.bytes(scid)), null);
    ByteBuffer out = ByteBuffer.allocate(1200);
    try {
      h.writeClientHello(params, out);
    } catch (HandshakeException e) {
      throw new AssertionError(e);
    }
    return Arrays.copyOf(out.array(), out.position());
  }
}
