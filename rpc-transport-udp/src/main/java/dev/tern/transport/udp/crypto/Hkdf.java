package dev.tern.transport.udp.crypto;

import java.nio.charset.StandardCharsets;

/**
 * HKDF (RFC 5869) over HMAC-SHA256, and TLS 1.3's HKDF-Expand-Label (RFC 8446 §7.1). Used when
 * keys are made (handshake, key update), not per packet. Not thread-safe.
 */
public final class Hkdf {
  /** Output length of HMAC-SHA256 (RFC 5869's HashLen). */
  public static final int HASH_BYTES = Hmac.OUTPUT_BYTES;
  /** RFC 8446 §7.1: every label is prefixed with "tls13 ". */
  private static final byte[] LABEL_PREFIX = "tls13 ".getBytes(StandardCharsets.US_ASCII);

  private final Hmac hmac;

  /** An HKDF on {@code provider}'s HMAC-SHA256. */
  public Hkdf(CryptoProvider provider) {
    this.hmac = provider.newHmacSha256();
  }

  /**
   * RFC 5869 §2.2: PRK = HMAC-Hash(salt, IKM); an empty or null salt is HashLen zeros.
   */
  public byte[] extract(byte[] salt, byte[] ikm) {
    hmac.init(salt == null || salt.length == 0 ? new byte[HASH_BYTES] : salt);
    hmac.update(ikm, 0, ikm.length);
    byte[] prk = new byte[HASH_BYTES];
    hmac.doFinal(prk, 0);
    return prk;
  }

  /**
   * RFC 5869 §2.3: T(i) = HMAC-Hash(PRK, T(i-1) | info | i), OKM = the first {@code length} bytes
   * of T(1) | T(2) | ...
   *
   * @throws IllegalArgumentException if {@code length} is outside 0..255 x HashLen
   */
  public byte[] expand(byte[] prk, byte[] info, int length) {
    if (length < 0 || length > 255 * HASH_BYTES) {
      throw new IllegalArgumentException("length must be in 0.." + 255 * HASH_BYTES + ", got "
          + length);
    }
    byte[] okm = new byte[length];
    byte[] t = new byte[HASH_BYTES];
    byte[] counter = new byte[1];
    int done = 0;
    for (int i = 1; done < length; i++) {
      hmac.init(prk);
      if (i > 1) {
        hmac.update(t, 0, HASH_BYTES);
      }
      hmac.update(info, 0, info.length);
      counter[0] = (byte) i;
      hmac.update(counter, 0, 1);
      hmac.doFinal(t, 0);
      int n = Math.min(HASH_BYTES, length - done);
      System.arraycopy(t, 0, okm, done, n);
      done += n;
    }
    return okm;
  }

  /**
   * RFC 8446 §7.1: HKDF-Expand(Secret, HkdfLabel, Length), where HkdfLabel is
   * {@code uint16 length, opaque label<7..255> = "tls13 " + Label, opaque context<0..255>}.
   */
  public byte[] expandLabel(byte[] secret, String label, byte[] context, int length) {
    byte[] l = label.getBytes(StandardCharsets.US_ASCII);
    int labelLen = LABEL_PREFIX.length + l.length;
    if (labelLen > 255 || context.length > 255 || length > 0xffff) {
      throw new IllegalArgumentException("HkdfLabel field too long: label '" + label + "', context "
          + context.length + " bytes, length " + length);
    }
    byte[] info = new byte[2 + 1 + labelLen + 1 + context.length];
    info[0] = (byte) (length >>> 8);
    info[1] = (byte) length;
    info[2] = (byte) labelLen;
    System.arraycopy(LABEL_PREFIX, 0, info, 3, LABEL_PREFIX.length);
    System.arraycopy(l, 0, info, 3 + LABEL_PREFIX.length, l.length);
    info[3 + labelLen] = (byte) context.length;
    System.arraycopy(context, 0, info, 4 + labelLen, context.length);
    return expand(secret, info, length);
  }
}
