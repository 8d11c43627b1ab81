package dev.tern.transport.udp.connection;

import dev.tern.transport.udp.crypto.CryptoProvider;
import dev.tern.transport.udp.crypto.Hkdf;
import dev.tern.transport.udp.crypto.Hmac;
import dev.tern.transport.udp.packet.ConnectionId;
import dev.tern.transport.udp.util.Buffers;
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
 * <p>A proof of the server's uptime (docs/protocol.md §8): the server also gives the client, in
 * the ServerHello's {@code tern_reset_proof_key} parameter, a second per-connection-ID key (the
 * first 16 bytes of HMAC-SHA256 over the connection ID under another derived secret). A reset
 * answering a packet long enough ends with {@code nonce (8) | uptime in ms XOR HMAC(proof key, "m"
 * | nonce)[0..4] | HMAC(proof key, "p" | nonce | uptime)[0..8] | token (16)}, all after the
 * longest short header the connection ID allows, so that the client's removal of header
 * protection cannot have touched it. The uptime counts from the moment the restarted server's
 * socket was bound ({@link ServerDemux#socketBound}), after the old process lost the port: a call
 * the client opened after {@code receipt - uptime} can only have reached the new process, which
 * dropped it unread, and the call layer may send it again. Without the proof key (the proof is
 * verified, never assumed), every opened call fails.
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
  /** The proof key's length. */
  public static final int PROOF_KEY_BYTES = 16;
  private static final int NONCE_BYTES = 8;
  private static final int UPTIME_BYTES = 4;
  private static final int PROOF_BYTES = 8;
  /** What a reset with a proof carries after the header: nonce, masked uptime, proof, token. */
  static final int PROOF_TAIL_BYTES = NONCE_BYTES + UPTIME_BYTES + PROOF_BYTES + TOKEN_BYTES;
  /** RFC 9000 §17.3: a short header's packet number is at most 4 bytes. */
  private static final int MAX_PACKET_NUMBER_BYTES = 4;

  private final Hmac hmac;
  private final byte[] key;
  private final byte[] proofSecret;
  private final byte[] proofKeyScratch = new byte[PROOF_KEY_BYTES];
  private final byte[] fields = new byte[1 + NONCE_BYTES + UPTIME_BYTES];
  private final byte[] out = new byte[Hmac.OUTPUT_BYTES];
  private final byte[] cid = new byte[ConnectionId.MAX_LENGTH];
  private final byte[] tokenScratch = new byte[TOKEN_BYTES];

  private StatelessReset(CryptoProvider provider, byte[] key, byte[] proofSecret) {
    this.hmac = provider.newHmacSha256();
    this.key = key;
    this.proofSecret = proofSecret;
  }

  /** The token source of a server holding {@code staticPrivateKey}. */
  public static StatelessReset forServer(CryptoProvider provider, byte[] staticPrivateKey) {
    Hkdf hkdf = new Hkdf(provider);
    byte[] prk = hkdf.extract(SALT, staticPrivateKey);
    return new StatelessReset(provider, hkdf.expandLabel(prk, "tern reset", new byte[0], 32),
        hkdf.expandLabel(prk, "tern reset proof", new byte[0], 32));
  }

  /** The proof key of {@code id}, for the ServerHello's {@code tern_reset_proof_key}. */
  public byte[] proofKey(ConnectionId id) {
    ByteBuffer b = ByteBuffer.allocate(id.length());
    id.write(b);
    byte[] k = new byte[PROOF_KEY_BYTES];
    writeProofKey(b, 0, id.length(), k);
    return k;
  }

  private void writeProofKey(ByteBuffer b, int offset, int length, byte[] dst) {
    Buffers.get(b, offset, cid, 0, length);
    hmac.init(proofSecret);
    hmac.update(cid, 0, length);
    hmac.doFinal(out, 0);
    System.arraycopy(out, 0, dst, 0, PROOF_KEY_BYTES);
  }

  /** The shortest reset that carries a proof after a short header with this connection ID's length. */
  static int provenBytes(int dcidLength) {
    return 1 + dcidLength + MAX_PACKET_NUMBER_BYTES + PROOF_TAIL_BYTES;
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
    Buffers.get(b, offset, cid, 0, length);
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
    return write(reply, triggerBytes, datagram, dcidOffset, dcidLength, random, -1);
  }

  /**
   * As {@link #write(ByteBuffer, int, ByteBuffer, int, int, Random)}, with the proof of {@code
   * uptimeMillis} (see the class comment) when it is not negative and the trigger is long enough
   * for a reset that carries one.
   */
  public int write(ByteBuffer reply, int triggerBytes, ByteBuffer datagram, int dcidOffset, int dcidLength,
      Random random, long uptimeMillis) {
    int proven = provenBytes(dcidLength);
    boolean prove = uptimeMillis >= 0 && triggerBytes - 1 >= proven;
    int size = prove ? proven : Math.min(triggerBytes - 1, SENT_BYTES);
    if (size < MIN_BYTES || reply.remaining() < size) {
      return 0;
    }
    int start = reply.position();
    reply.put((byte) (0x40 | (random.nextInt() & 0x3f)));
    int randomEnd = prove ? size - PROOF_TAIL_BYTES : size - TOKEN_BYTES;
    for (int i = 1; i < randomEnd; i++) {
      reply.put((byte) random.nextInt());
    }
    if (prove) {
      writeProofKey(datagram, dcidOffset, dcidLength, proofKeyScratch);
      for (int i = 0; i < NONCE_BYTES; i++) {
        fields[1 + i] = (byte) random.nextInt();
      }
      int up = (int) Math.min(0xffffffffL, uptimeMillis);
      fields[0] = 'm';
      hmac.init(proofKeyScratch);
      hmac.update(fields, 0, 1 + NONCE_BYTES);
      hmac.doFinal(out, 0);
      reply.put(fields, 1, NONCE_BYTES);
      for (int i = 0; i < UPTIME_BYTES; i++) {
        byte b = (byte) (up >>> (24 - 8 * i));
        fields[1 + NONCE_BYTES + i] = b;
        reply.put((byte) (b ^ out[i]));
      }
      fields[0] = 'p';
      hmac.init(proofKeyScratch);
      hmac.update(fields, 0, fields.length);
      hmac.doFinal(out, 0);
      reply.put(out, 0, PROOF_BYTES);
    }
    writeToken(datagram, dcidOffset, dcidLength, tokenScratch, 0);
    reply.put(tokenScratch);
    return reply.position() - start;
  }

  /**
   * The uptime a reset proves, in ms, or -1 if it carries no proof that {@code proofKey}
   * verifies. {@code headerEnd} is where the longest short header would end: the proof must lie
   * after it. Allocates (a reset ends the connection; this runs once).
   */
  public static long provenUptime(ByteBuffer datagram, int headerEnd, int end, byte[] proofKey, Hmac hmac) {
    int at = end - PROOF_TAIL_BYTES;
    if (proofKey == null || at < headerEnd) {
      return -1;
    }
    byte[] f = new byte[1 + NONCE_BYTES + UPTIME_BYTES];
    Buffers.get(datagram, at, f, 1, NONCE_BYTES);
    byte[] mac = new byte[Hmac.OUTPUT_BYTES];
    f[0] = 'm';
    hmac.init(proofKey);
    hmac.update(f, 0, 1 + NONCE_BYTES);
    hmac.doFinal(mac, 0);
    for (int i = 0; i < UPTIME_BYTES; i++) {
      f[1 + NONCE_BYTES + i] = (byte) (datagram.get(at + NONCE_BYTES + i) ^ mac[i]);
    }
    f[0] = 'p';
    hmac.init(proofKey);
    hmac.update(f, 0, f.length);
    hmac.doFinal(mac, 0);
    byte[] proof = new byte[PROOF_BYTES];
    Buffers.get(datagram, at + NONCE_BYTES + UPTIME_BYTES, proof, 0, PROOF_BYTES);
    if (!MessageDigest.isEqual(proof, java.util.Arrays.copyOf(mac, PROOF_BYTES))) {
      return -1;
    }
    return ByteBuffer.wrap(f, 1 + NONCE_BYTES, UPTIME_BYTES).getInt() & 0xffffffffL;
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
