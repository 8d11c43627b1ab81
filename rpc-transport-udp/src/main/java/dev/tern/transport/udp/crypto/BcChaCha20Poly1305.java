package dev.tern.transport.udp.crypto;

import java.util.Arrays;
import org.bouncycastle.crypto.engines.ChaCha7539Engine;
import org.bouncycastle.crypto.macs.Poly1305;
import org.bouncycastle.crypto.params.KeyParameter;
import org.bouncycastle.crypto.params.ParametersWithIV;

/**
 * ChaCha20-Poly1305 (RFC 8439 §2.8) for the {@code bc} provider, built from BouncyCastle's
 * ChaCha20 ({@link ChaCha7539Engine}, RFC 8439 §2.4) and {@link Poly1305} (§2.5) so that a
 * message allocates nothing. Neither primitive is implemented here: this class only feeds them
 * as §2.8 says.
 *
 * <p>Why not BouncyCastle's own {@code ChaCha20Poly1305}: it makes the one-time Poly1305 key as a
 * new 64-byte block and a new {@code KeyParameter} per message, a new 16-byte length block per
 * message, and after every successful decryption a second one-time key in case the same nonce
 * is used again: 176 B to seal and 320 B to open (BouncyCastle 1.87), which alone exceeds the
 * budget of a unary call (docs/udp-crypto.md §8). Here the block, the key parameter (whose array
 * {@link Poly1305#init} reads into its own state and does not keep) and the length block are
 * made once. {@code AeadVectorsTest} checks that this class and BouncyCastle's produce the
 * same bytes and refuse the same forgeries.
 *
 * <p>As BouncyCastle's does, it refuses to seal twice in a row under one nonce. Not thread-safe.
 */
final class BcChaCha20Poly1305 implements Aead {
  private static final int BLOCK = 64;
  private static final int POLY_KEY_BYTES = 32;
  private static final byte[] ZEROS = new byte[16];

  private final ChaCha7539Engine chacha = new ChaCha7539Engine();
  private final Poly1305 poly = new Poly1305();
  /** The nonce of each message after the first, written into this object's IV array. */
  private final ParametersWithIV nonceOnly = new ParametersWithIV(null, new byte[12]);
  /** The first message's parameters, which carry the key; null once used. */
  private ParametersWithIV keyed;
  private final KeyParameter polyKey = new KeyParameter(new byte[POLY_KEY_BYTES]);
  private final byte[] block = new byte[BLOCK];
  private final byte[] lengths = new byte[16];
  private final byte[] tag = new byte[AeadAlgorithm.TAG_BYTES];
  private final byte[] lastSealNonce = new byte[AeadAlgorithm.NONCE_BYTES];
  private boolean sealed;

  BcChaCha20Poly1305(byte[] key) {
    JdkCrypto.checkLength("key", key, AeadAlgorithm.CHACHA20_POLY1305.keyBytes());
    keyed = new ParametersWithIV(new KeyParameter(key), new byte[12]);
  }

  @Override
  public AeadAlgorithm algorithm() {
    return AeadAlgorithm.CHACHA20_POLY1305;
  }

  /**
   * Sets the nonce and keys Poly1305 with the first 32 bytes of ChaCha20 block 0 (RFC 8439
   * §2.6), leaving the keystream at block 1, where the message's encryption starts (§2.8).
   */
  private void start(byte[] nonce) {
    JdkCrypto.checkLength("nonce", nonce, AeadAlgorithm.NONCE_BYTES);
    ParametersWithIV p = keyed != null ? keyed : nonceOnly;
    System.arraycopy(nonce, 0, p.getIV(), 0, AeadAlgorithm.NONCE_BYTES);
    chacha.init(true, p); // a null key keeps the key (the engine reads the IV here, once)
    keyed = null;
    Arrays.fill(block, (byte) 0);
    chacha.processBytes(block, 0, BLOCK, block, 0);
    System.arraycopy(block, 0, polyKey.getKey(), 0, POLY_KEY_BYTES);
    poly.init(polyKey);
    Arrays.fill(block, (byte) 0);
    Arrays.fill(polyKey.getKey(), (byte) 0);
  }

  /** Poly1305 over {@code len} bytes, padded with zeros to a multiple of 16 (§2.8). */
  private void macPadded(byte[] in, int off, int len) {
    poly.update(in, off, len);
    int partial = len & 15;
    if (partial != 0) {
      poly.update(ZEROS, 0, 16 - partial);
    }
  }

  /** The two lengths as 64-bit little-endian numbers, then the tag into {@link #tag} (§2.8). */
  private void finishMac(int aadLen, int ciphertextLen) {
    longToLittleEndian(aadLen, lengths, 0);
    longToLittleEndian(ciphertextLen, lengths, 8);
    poly.update(lengths, 0, lengths.length);
    poly.doFinal(tag, 0);
  }

  private static void longToLittleEndian(long v, byte[] out, int off) {
    for (int i = 0; i < 8; i++) {
      out[off + i] = (byte) (v >>> (8 * i));
    }
  }

  @Override
  public int seal(byte[] nonce, byte[] aad, int aadOff, int aadLen, byte[] in, int inOff, int len,
      byte[] out, int outOff) {
    if (sealed && Arrays.equals(lastSealNonce, nonce)) {
      throw new IllegalArgumentException("cannot reuse a nonce for ChaCha20-Poly1305 encryption");
    }
    start(nonce);
    System.arraycopy(nonce, 0, lastSealNonce, 0, lastSealNonce.length);
    sealed = true;
    macPadded(aad, aadOff, aadLen);
    chacha.processBytes(in, inOff, len, out, outOff);
    macPadded(out, outOff, len);
    finishMac(aadLen, len);
    System.arraycopy(tag, 0, out, outOff + len, tag.length);
    return len + tag.length;
  }

  @Override
  public int open(byte[] nonce, byte[] aad, int aadOff, int aadLen, byte[] in, int inOff, int len,
      byte[] out, int outOff) {
    if (len < AeadAlgorithm.TAG_BYTES) {
      return -1;
    }
    int ciphertextLen = len - AeadAlgorithm.TAG_BYTES;
    start(nonce);
    macPadded(aad, aadOff, aadLen);
    macPadded(in, inOff, ciphertextLen);
    finishMac(aadLen, ciphertextLen);
    if (!org.bouncycastle.util.Arrays.constantTimeAreEqual(tag.length, tag, 0, in,
        inOff + ciphertextLen)) {
      return -1; // nothing decrypted: the tag is checked first
    }
    chacha.processBytes(in, inOff, ciphertextLen, out, outOff);
    return ciphertextLen;
  }
}
