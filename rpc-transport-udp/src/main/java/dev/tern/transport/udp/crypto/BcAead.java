package dev.tern.transport.udp.crypto;

import org.bouncycastle.crypto.InvalidCipherTextException;
import org.bouncycastle.crypto.engines.AESEngine;
import org.bouncycastle.crypto.modes.AEADCipher;
import org.bouncycastle.crypto.modes.ChaCha20Poly1305;
import org.bouncycastle.crypto.modes.GCMBlockCipher;
import org.bouncycastle.crypto.params.AEADParameters;
import org.bouncycastle.crypto.params.KeyParameter;

/**
 * An {@link Aead} on BouncyCastle's GCMBlockCipher(AESEngine) or ChaCha20Poly1305. The key is
 * given once; later initialisations pass a null key, which BouncyCastle takes as "keep the key",
 * so the AES key schedule and the GHASH tables are built once per key, not per packet.
 */
final class BcAead implements Aead {
  private static final int TAG_BITS = AeadAlgorithm.TAG_BYTES * 8;
  private final AeadAlgorithm algorithm;
  private final AEADCipher cipher;
  private KeyParameter firstKey;

  BcAead(AeadAlgorithm algorithm, byte[] key) {
    JdkCrypto.checkLength("key", key, algorithm.keyBytes());
    this.algorithm = algorithm;
    this.cipher = algorithm.isAes()
        ? GCMBlockCipher.newInstance(AESEngine.newInstance())
        : new ChaCha20Poly1305();
    this.firstKey = new KeyParameter(key);
  }

  @Override
  public AeadAlgorithm algorithm() {
    return algorithm;
  }

  private void init(boolean encrypt, byte[] nonce) {
    // The first init carries the key; a null key afterwards keeps it (both BouncyCastle
    // ciphers support this).
    cipher.init(encrypt, new AEADParameters(firstKey, TAG_BITS, nonce));
    firstKey = null;
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
