package dev.tern.transport.udp.crypto;

import org.bouncycastle.crypto.InvalidCipherTextException;
import org.bouncycastle.crypto.engines.AESEngine;
import org.bouncycastle.crypto.modes.GCMBlockCipher;
import org.bouncycastle.crypto.modes.GCMModeCipher;
import org.bouncycastle.crypto.params.KeyParameter;
import org.bouncycastle.crypto.params.ParametersWithIV;

/**
 * AES-GCM for the {@code bc} provider: an {@link Aead} on BouncyCastle's
 * GCMBlockCipher(AESEngine). (Its ChaCha20-Poly1305 is {@link BcChaCha20Poly1305}, which
 * allocates nothing per message.)
 *
 * <p>The key is given once: the first initialisation carries it, and later ones pass a null key,
 * which GCMBlockCipher takes as "keep the key", so the AES key schedule and the GHASH tables are
 * built once per key, not per packet. The nonce travels in {@link ParametersWithIV} objects made
 * once per key whose IV array is overwritten for each message, so no parameter object is made per
 * packet. That is safe because of how GCMBlockCipher reads the array (BouncyCastle 1.87): it
 * keeps a reference to the nonce array it was given, derives the counter block J0 from it in
 * {@code init}, and in the next {@code init} compares the new nonce with that array to refuse a
 * repeated nonce when encrypting. Two parameter objects are used in turn, and the one the cipher
 * last took is not written until the other has been given to it, so the array it compares with
 * always holds the previous message's nonce and the library's repeated-nonce check keeps working.
 *
 * <p>What each message still allocates is inside the library: GCMBlockCipher allocates its
 * per-message state in {@code init} and {@code doFinal}, about 500 bytes (docs/udp-crypto.md §8).
 */
final class BcAead implements Aead {
  private final AeadAlgorithm algorithm;
  private final GCMModeCipher cipher;
  private ParametersWithIV keyed;
  private final ParametersWithIV[] params = new ParametersWithIV[2];
  private int next;

  BcAead(AeadAlgorithm algorithm, byte[] key) {
    if (!algorithm.isAes()) {
      throw new IllegalArgumentException("BcAead is AES-GCM only, got " + algorithm);
    }
    JdkCrypto.checkLength("key", key, algorithm.keyBytes());
    this.algorithm = algorithm;
    this.cipher = GCMBlockCipher.newInstance(AESEngine.newInstance());
    byte[] noNonceYet = new byte[AeadAlgorithm.NONCE_BYTES];
    // Each object copies the array it is given: three arrays.
    this.keyed = new ParametersWithIV(new KeyParameter(key), noNonceYet);
    params[0] = new ParametersWithIV(null, noNonceYet);
    params[1] = new ParametersWithIV(null, noNonceYet);
  }

  @Override
  public AeadAlgorithm algorithm() {
    return algorithm;
  }

  private void init(boolean encrypt, byte[] nonce) {
    JdkCrypto.checkLength("nonce", nonce, AeadAlgorithm.NONCE_BYTES);
    // The first message carries the key, with its nonce; the others reuse the two objects.
    ParametersWithIV p = keyed != null ? keyed : params[next];
    System.arraycopy(nonce, 0, p.getIV(), 0, AeadAlgorithm.NONCE_BYTES);
    cipher.init(encrypt, p);
    // Only once the cipher has taken p: after a refused init (a repeated nonce) it still holds
    // the other object's array, which must keep the previous nonce.
    if (p == keyed) {
      keyed = null;
    } else {
      next ^= 1; // the other object next time
    }
  }

  @Override
  public int seal(byte[] nonce, byte[] aad, int aadOff, int aadLen, byte[] in, int inOff, int len,
      byte[] out, int outOff) {
    init(true, nonce);
    cipher.processAADBytes(aad, aadOff, aadLen);
    int n = cipher.processBytes(in, inOff, len, out, outOff);
    try {
      return n + cipher.doFinal(out, outOff + n);
    } catch (InvalidCipherTextException e) {
      throw new IllegalStateException(algorithm + " seal failed: " + e.getMessage(), e);
    }
  }

  @Override
  public int open(byte[] nonce, byte[] aad, int aadOff, int aadLen, byte[] in, int inOff, int len,
      byte[] out, int outOff) {
    if (len < AeadAlgorithm.TAG_BYTES) {
      return -1;
    }
    init(false, nonce);
    cipher.processAADBytes(aad, aadOff, aadLen);
    int n = cipher.processBytes(in, inOff, len, out, outOff);
    try {
      return n + cipher.doFinal(out, outOff + n);
    } catch (InvalidCipherTextException e) {
      return -1;
    }
  }
}
