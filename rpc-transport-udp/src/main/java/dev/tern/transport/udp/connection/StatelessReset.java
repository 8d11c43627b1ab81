package dev.tern.transport.udp.connection;

import dev.tern.transport.udp.crypto.CryptoProvider;
import dev.tern.transport.udp.crypto.Hkdf;
import dev.tern.transport.udp.crypto.Hmac;
import dev.tern.transport.udp.packet.ConnectionId;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Random;

/**
 * Stateless reset (RFC 9000 §10.3) for the encrypted version (docs/protocol.md §8): how a server
 * that no longer has a connection (it restarted) tells the client so at once, instead of leaving
 * it to find the silence.
 *
 * <p>Tokens (RFC 9000 §10.3.2): a server's token for one of its connection IDs is the first 16
 * bytes of HMAC-SHA256 over the connection ID, keyed with a secret derived from the server's
 * current static key (HKDF, RFC 5869: Extract with the salt "tern stateless reset", then
 * Expand-Label "tern reset"). The static key is what a restarted server still holds, so it can
 * compute the token of a connection it has forgotten from the packet's Destination Connection ID
 * alone; and a token says nothing about the key or another connection's token, so no client can
 * reset another's connection (each learns only its own token, in the ServerHello's encrypted
 * transport parameters).
 *
 * <p>Not thread-safe: one per endpoint loop. Computing a token allocates nothing.
 */
public final class StatelessReset {
  /** The token's length. */
  public static final int TOKEN_BYTES = 16;
  /**
   * RFC 9000 §10.3: the shortest stateless reset: one header byte, at least four unpredictable
   * bytes (as a short header with a packet number and a sample would have), the token.
   */
  public static final int MIN_BYTES = 21;
  /** The length of a reset answering a longer packet; one byte shorter than the trigger below it. */
  static final int SENT_BYTES = 42;
  private static final byte[] SALT = "tern stateless reset".getBytes(StandardCharsets.US_ASCII);

  private final Hmac hmac;
  private final byte[] key;
  private final byte[] out = new byte[Hmac.OUTPUT_BYTES];
  private final byte[] cid = new byte[ConnectionId.MAX_LENGTH];
  private final byte[] tokenScratch = new byte[TOKEN_BYTES];

  private StatelessReset(CryptoProvider provider, byte[] key) {
    this.hmac = provider.newHmacSha256();
    this.key = key;
  }

  /** The token source of a server holding {@code staticPrivateKey}. */
  public static StatelessReset forServer(CryptoProvider provider, byte[] staticPrivateKey) {
    Hkdf hkdf = new Hkdf(provider);
    byte[] prk = hkdf.extract(SALT, staticPrivateKey);
    return new StatelessReset(provider, hkdf.expandLabel(prk, "tern reset", new byte[0], 32));
  }

  /** The token of the connection ID in {@code b} at {@code offset}, {@code length} bytes. */
  public byte[] token(ByteBuffer b, int offset, int length) {
    byte[] t = new byte[TOKEN_BYTES];
    writeToken(b, offset, length, t, 0);
    return t;
  }

  /** The token of {@code cid}. */
  public byte[] token(ConnectionId id) {
    ByteBuffer b = ByteBuffer.allocate(id.length());
    id.write(b);
    return token(b, 0, id.length());
  }

  private void writeToken(ByteBuffer b, int offset, int length, byte[] dst, int dstOffset) {
    if (length > ConnectionId.MAX_LENGTH) {
      throw new IllegalArgumentException("a connection ID is at most 20 bytes: " + length);
    }
    b.get(offset, cid, 0, length);
    hmac.init(key);
    hmac.update(cid, 0, length);
    hmac.doFinal(out, 0);
    System.arraycopy(out, 0, dst, dstOffset, TOKEN_BYTES);
  }

  /**
   * Writes the stateless reset answering a short-header packet of {@code triggerBytes} whose
   * Destination Connection ID is in {@code datagram} (RFC 9000 §10.3): a first byte with the
   * short header's form bits (0, then the fixed bit 1) and random others, random bytes, then the
   * token, in all shorter than the trigger (§10.3.3: so that two endpoints that both lost their
   * state cannot answer each other forever) and never below {@link #MIN_BYTES}.
   *
   * @return the bytes written, 0 if the trigger was too short to answer
   */
  public int write(ByteBuffer reply, int triggerBytes, ByteBuffer datagram, int dcidOffset, int dcidLength,
      Random random) {
    int size = Math.min(triggerBytes - 1, SENT_BYTES);
    if (size < MIN_BYTES || reply.remaining() < size) {
      return 0;
    }
    int start = reply.position();
    reply.put((byte) (0x40 | (random.nextInt() & 0x3f)));
    for (int i = 1; i < size - TOKEN_BYTES; i++) {
      reply.put((byte) random.nextInt());
    }
    writeToken(datagram, dcidOffset, dcidLength, tokenScratch, 0);
    reply.put(tokenScratch);
    return reply.position() - start;
  }

  /**
   * Whether the datagram from {@code start} to {@code end}, which did not open as a packet of the
   * connection, is a stateless reset carrying {@code token} (RFC 9000 §10.3.1: a short-header
   * form, at least {@link #MIN_BYTES}, ending in the token; compared in constant time).
   */
  public static boolean matches(ByteBuffer datagram, int start, int end, byte[] token) {
    if (token == null || end - start < MIN_BYTES || (datagram.get(start) & 0xc0) != 0x40) {
      return false;
    }
    int diff = 0;
    for (int i = 0; i < TOKEN_BYTES; i++) {
      diff |= datagram.get(end - TOKEN_BYTES + i) ^ token[i];
    }
    return diff == 0;
  }

  /** Constant-time comparison of two tokens (tests). */
  static boolean same(byte[] a, byte[] b) {
    return MessageDigest.isEqual(a, b);
  }
}
