package dev.tern.transport.udp.connection;

import dev.tern.transport.udp.crypto.AeadAlgorithm;
import dev.tern.transport.udp.handshake.PinnedServerKey;
import dev.tern.transport.udp.handshake.ResumptionTicket;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;

/**
 * A resumption ticket as the client keeps it (docs/protocol.md §9.10): what a server's NEW_TICKET
 * gave and what the client knew of the connection that earned it, everything a later connection
 * needs to resume with IKpsk2 and send early data in 0-RTT packets (RFC 9001 §4.6, RFC 8446
 * §4.6.1 for the ticket's lifetime and age). A ticket is for one server key and is used once.
 *
 * <p>It holds secrets (the PSK and the client static key): keep it as carefully as a session
 * key. {@link #toBytes} / {@link #fromBytes} give a versioned encoding for a session store.
 */
public final class SessionTicket {
  /** The first byte of {@link #toBytes}'s encoding. */
  public static final int FORMAT_VERSION = 1;

  private final byte[] ticketId;
  private final byte[] psk;
  private final byte[] clientStaticKey;
  private final int serverKeyId;
  private final byte[] serverPublicKey;
  private final AeadAlgorithm cipher;
  private final long lifetimeMillis;
  private final long receivedAtMillis;
  private final long maxEarlyDataBytes;
  private final long smoothedRttNs;
  private final long peerInitialMaxData;
  private final long peerInitialMaxStreamData;
  private final long peerInitialMaxStreams;

  /**
   * A ticket.
   *
   * @param ticketId the server's opaque id, 1..255 bytes
   * @param psk the 32-byte pre-shared key (HandshakeSecrets.ticketPsk of the ticket's nonce)
   * @param clientStaticKey the X25519 private key the client used on the earning connection
   * @param serverKey the pinned server key (id and public key) the ticket was issued under
   * @param cipher the AEAD of the earning connection, proposed again on resumption
   * @param lifetimeMillis how long the ticket stays valid from its receipt
   * @param receivedAtMillis when the client received it, wall-clock ms
   * @param maxEarlyDataBytes the server's limit on stream data in 0-RTT, 0 for none
   * @param smoothedRttNs the earning connection's smoothed RTT, to seed a resumed one's estimate
   * @param peerInitialMaxData the server's initial_max_data then (RFC 9000 §7.4.1)
   * @param peerInitialMaxStreamData the server's initial_max_stream_data then
   * @param peerInitialMaxStreams the server's initial_max_streams then
   */
  public SessionTicket(byte[] ticketId, byte[] psk, byte[] clientStaticKey,
      PinnedServerKey serverKey, AeadAlgorithm cipher, long lifetimeMillis,
      long receivedAtMillis, long maxEarlyDataBytes, long smoothedRttNs, long peerInitialMaxData,
      long peerInitialMaxStreamData, long peerInitialMaxStreams) {
    ResumptionTicket check = new ResumptionTicket(ticketId, psk, clientStaticKey); // lengths
    if (cipher == null || cipher == AeadAlgorithm.AES_128_GCM) {
      throw new IllegalArgumentException("cipher must be a handshake cipher, got " + cipher);
    }
    if (lifetimeMillis < 0 || maxEarlyDataBytes < 0 || smoothedRttNs < 0
        || peerInitialMaxData < 0 || peerInitialMaxStreamData < 0 || peerInitialMaxStreams < 0) {
      throw new IllegalArgumentException("negative ticket field");
    }
    this.ticketId = check.ticketId();
    this.psk = check.psk();
    this.clientStaticKey = check.clientStaticKey();
    this.serverKeyId = serverKey.keyId();
    this.serverPublicKey = serverKey.publicKey();
    this.cipher = cipher;
    this.lifetimeMillis = lifetimeMillis;
    this.receivedAtMillis = receivedAtMillis;
    this.maxEarlyDataBytes = maxEarlyDataBytes;
    this.smoothedRttNs = smoothedRttNs;
    this.peerInitialMaxData = peerInitialMaxData;
    this.peerInitialMaxStreamData = peerInitialMaxStreamData;
    this.peerInitialMaxStreams = peerInitialMaxStreams;
  }

  /** What the handshake resumes with. */
  public ResumptionTicket resumption() {
    return new ResumptionTicket(ticketId, psk, clientStaticKey);
  }

  /** The server key the ticket was issued under (resumption must encrypt to it). */
  public PinnedServerKey serverKey() {
    return new PinnedServerKey(serverKeyId, serverPublicKey);
  }

  /** The server key id the ticket was issued under. */
  public int serverKeyId() {
    return serverKeyId;
  }

  /** A copy of the server's static public key the ticket was issued under. */
  public byte[] serverPublicKey() {
    return serverPublicKey.clone();
  }

  /** A copy of the ticket id. */
  public byte[] ticketId() {
    return ticketId.clone();
  }

  /** The AEAD of the connection that earned the ticket. */
  public AeadAlgorithm cipher() {
    return cipher;
  }

  /** The ticket's lifetime from its receipt, ms. */
  public long lifetimeMillis() {
    return lifetimeMillis;
  }

  /** When the client received the ticket, wall-clock ms. */
  public long receivedAtMillis() {
    return receivedAtMillis;
  }

  /** The server's limit on 0-RTT stream data, bytes (0: no early data). */
  public long maxEarlyDataBytes() {
    return maxEarlyDataBytes;
  }

  /** The earning connection's smoothed RTT, ns (0 if it had no sample). */
  public long smoothedRttNs() {
    return smoothedRttNs;
  }

  /** The server's initial_max_data on the earning connection. */
  public long peerInitialMaxData() {
    return peerInitialMaxData;
  }

  /** The server's initial_max_stream_data on the earning connection. */
  public long peerInitialMaxStreamData() {
    return peerInitialMaxStreamData;
  }

  /** The server's initial_max_streams on the earning connection. */
  public long peerInitialMaxStreams() {
    return peerInitialMaxStreams;
  }

  /** The ticket's age at {@code nowMillis} as the client sees it (RFC 8446 §4.2.11), ms, ≥ 0. */
  public long ageMillis(long nowMillis) {
    return Math.max(0, nowMillis - receivedAtMillis);
  }

  /** Whether the ticket's lifetime is over at {@code nowMillis}. */
  public boolean expired(long nowMillis) {
    return nowMillis - receivedAtMillis >= lifetimeMillis;
  }

  /**
   * The versioned encoding for a session store: {@link #FORMAT_VERSION}, then every field
   * (length-prefixed byte strings, 8-byte numbers). Holds the ticket's secrets.
   */
  public byte[] toBytes() {
    ByteBuffer b = ByteBuffer.allocate(1 + 1 + ticketId.length + 32 + 32 + 1 + 32 + 1
        + 8 * 8);
    b.put((byte) FORMAT_VERSION);
    b.put((byte) ticketId.length).put(ticketId);
    b.put(psk).put(clientStaticKey);
    b.put((byte) serverKeyId).put(serverPublicKey);
    b.put((byte) (cipher == AeadAlgorithm.AES_256_GCM ? 1 : 2));
    b.putLong(lifetimeMillis).putLong(receivedAtMillis).putLong(maxEarlyDataBytes)
        .putLong(smoothedRttNs).putLong(peerInitialMaxData).putLong(peerInitialMaxStreamData)
        .putLong(peerInitialMaxStreams).putLong(0); // reserved
    return b.array();
  }

  /**
   * Parses {@link #toBytes}'s encoding.
   *
   * @return the ticket, or null if the bytes are not a ticket of a format this code reads
   */
  public static SessionTicket fromBytes(byte[] bytes) {
    if (bytes == null || bytes.length < 2 || bytes[0] != FORMAT_VERSION) {
      return null;
    }
    try {
      ByteBuffer b = ByteBuffer.wrap(bytes, 1, bytes.length - 1);
      byte[] id = new byte[b.get() & 0xff];
      b.get(id);
      byte[] psk = new byte[32];
      b.get(psk);
      byte[] clientKey = new byte[32];
      b.get(clientKey);
      int keyId = b.get() & 0xff;
      byte[] serverKey = new byte[32];
      b.get(serverKey);
      int c = b.get();
      AeadAlgorithm cipher = c == 1 ? AeadAlgorithm.AES_256_GCM
          : c == 2 ? AeadAlgorithm.CHACHA20_POLY1305 : null;
      SessionTicket t = new SessionTicket(id, psk, clientKey, new PinnedServerKey(keyId,
          serverKey), cipher, b.getLong(), b.getLong(), b.getLong(), b.getLong(), b.getLong(),
          b.getLong(), b.getLong());
      b.getLong(); // reserved
      return b.hasRemaining() ? null : t;
    } catch (BufferUnderflowException | IllegalArgumentException e) {
      return null;
    }
  }

  @Override
  public String toString() {
    return "SessionTicket[" + ticketId.length + "-byte id, server key " + serverKeyId
        + ", lifetime " + lifetimeMillis + " ms, early data " + maxEarlyDataBytes + " B]";
  }
}
