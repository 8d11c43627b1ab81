package dev.tern.transport.udp.crypto;

import org.bouncycastle.crypto.InvalidCipherTextException;
import org.bouncycastle.crypto.engines.AESEngine;
import org.bouncycastle.crypto.modes.AEADCipher;
import org.bouncycastle.crypto.modes.ChaCha20Poly1305;
import org.bouncycastle.crypto.modes.GCMBlockCipher;
import org.bouncycastle.crypto.params.KeyParameter;
import org.bouncycastle.crypto.params.ParametersWithIV;

/**
 * An {@link Aead} on BouncyCastle's GCMBlockCipher(AESEngine) or ChaCha20Poly1305.
 *
 * <p>The key is given once: the first initialisation carries it, and later ones pass a null key,
 * which both ciphers take as "keep the key", so the AES key schedule and the GHASH tables are
 * built once per key, not per packet. The nonce travels in {@link ParametersWithIV} objects made
 * once per key whose IV array is overwritten for each message, so no parameter object is made per
 * packet. That is safe because of how each cipher reads the array (BouncyCastle 1.87):
 * <ul>
 *   <li>ChaCha20Poly1305 copies the nonce into an array of its own in {@code init}, and its
 *       ChaCha20 engine reads it into its state there; neither looks at our array again. Its
 *       check against encrypting twice under one nonce compares that copy with the new nonce.</li>
 *   <li>GCMBlockCipher keeps a reference to the nonce array it was given: it derives the counter
 *       block J0 from it in {@code init}, and the next {@code init} compares the new nonce with
 *       that array to refuse a repeated nonce when encrypting. Two parameter objects are used in
 *       turn, and the one the cipher last took is not written until the other has been given to
 *       it, so the array it compares with always holds the previous message's nonce and the
 *       library's repeated-nonce check keeps working.</li>
 * </ul>
 *
 * <p>What each message still allocates is inside the library: ChaCha20Poly1305 makes the
 * Poly1305 one-time key (a 64-byte block and a {@link KeyParameter}) and a 16-byte length block
 * per message; GCMBlockCipher allocates its per-message state in {@code init} and
 * {@code doFinal} (docs/udp-crypto.md §8).
 */
final class BcAead implements Aead {
  private final AeadAlgorithm algorithm;
  private final AEADCipher cipher;
  private ParametersWithIV keyed;
  private final ParametersWithIV[] params = new ParametersWithIV[2];
  private int next;

  BcAead(AeadAlgorithm algorithm, byte[] key) {
    JdkCrypto.checkLength("key", key, algorithm.keyBytes());
    this.algorithm = algorithm;
    this.cipher = algorithm.isAes()
        ? GCMBlockCipher.newInstance(AESEngine.newInstance())
        : new ChaCha20Poly1305();
    byte[] noNonceYet = new byte[AeadAlgorithm.NONCE_BYTES];
    this.keyed = new ParametersWithIV(new KeyParameter(key), noNonceYet);
    params[0] = new ParametersWithIV(null, noNonceYet);
    params[1] = algorithm.isAes() ? new ParametersWithIV(null, noNonceYet) : params[0];
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
      next ^= 1; // GCM: the other object next time (ChaCha20Poly1305: both are the same one)
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
