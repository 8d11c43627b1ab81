package dev.tern.transport.udp.crypto;

import java.security.GeneralSecurityException;
import java.security.spec.AlgorithmParameterSpec;
import java.util.Arrays;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * An {@link Aead} on one JCA {@link Cipher}, created once and re-initialised per message with the
 * message's nonce (the JCA has no other way to change a nonce).
 */
final class JdkAead implements Aead {
  private final AeadAlgorithm algorithm;
  private final Cipher cipher;
  private final SecretKeySpec key;
  private final boolean gcm;
  /** The nonce of the last initialisation (ChaCha20-Poly1305 only; see {@link #open}). */
  private final byte[] lastNonce = new byte[AeadAlgorithm.NONCE_BYTES];
  private boolean initialised;

  JdkAead(AeadAlgorithm algorithm, byte[] key) {
    JdkCrypto.checkLength("key", key, algorithm.keyBytes());
    this.algorithm = algorithm;
    this.gcm = algorithm.isAes();
    this.cipher = JdkCrypto.instance(
        () -> Cipher.getInstance(gcm ? "AES/GCM/NoPadding" : "ChaCha20-Poly1305"));
    this.key = new SecretKeySpec(key, gcm ? "AES" : "ChaCha20");
  }

  @Override
  public AeadAlgorithm algorithm() {
    return algorithm;
  }

  private AlgorithmParameterSpec spec(byte[] nonce) {
    return gcm ? new GCMParameterSpec(AeadAlgorithm.TAG_BYTES * 8, nonce)
        : new IvParameterSpec(nonce);
  }

  private void remember(byte[] nonce) {
    if (!gcm) {
      System.arraycopy(nonce, 0, lastNonce, 0, lastNonce.length);
      initialised = true;
    }
  }

  @Override
  public int seal(byte[] nonce, byte[] aad, int aadOff, int aadLen, byte[] in, int inOff, int len,
      byte[] out, int outOff) {
    try {
      cipher.init(Cipher.ENCRYPT_MODE, key, spec(nonce));
      remember(nonce);
      if (aadLen > 0) {
        cipher.updateAAD(aad, aadOff, aadLen);
      }
      return cipher.doFinal(in, inOff, len, out, outOff);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(algorithm + " seal failed: " + e.getMessage(), e);
    }
  }

  @Override
  public int open(byte[] nonce, byte[] aad, int aadOff, int aadLen, byte[] in, int inOff, int len,
      byte[] out, int outOff) {
    if (len < AeadAlgorithm.TAG_BYTES) {
      return -1;
    }
    try {
      if (!gcm && initialised && Arrays.equals(nonce, lastNonce)) {
        // The JCA's ChaCha20-Poly1305 refuses two initialisations in a row with one key and
        // nonce, even to decrypt; a duplicated or forged packet repeats a packet number, so
        // step through another nonce first.
        lastNonce[0] ^= 1;
        cipher.init(Cipher.DECRYPT_MODE, key, spec(lastNonce));
      }
      cipher.init(Cipher.DECRYPT_MODE, key, spec(nonce));
      remember(nonce);
      if (aadLen > 0) {
        cipher.updateAAD(aad, aadOff, aadLen);
      }
      return cipher.doFinal(in, inOff, len, out, outOff);
    } catch (AEADBadTagException e) {
      return -1;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(algorithm + " open failed: " + e.getMessage(), e);
    }
  }
}
