package dev.tern.transport.udp.handshake;

import dev.tern.transport.udp.crypto.Aead;
import dev.tern.transport.udp.crypto.AeadAlgorithm;
import dev.tern.transport.udp.crypto.CryptoProvider;
import java.util.Arrays;

/**
 * Noise's CipherState (Noise revision 34 §5.1): a key {@code k} (or none) and a 64-bit nonce
 * {@code n}. Nonces are encoded per the cipher (§12.3: ChaChaPoly, 32 zero bits then n
 * little-endian; §12.4: AESGCM, 32 zero bits then n big-endian). Not thread-safe.
 */
public final class CipherState {
  /** §5.1: nonce 2^64-1 is reserved; in Java's signed long that is -1. */
  private static final long MAX_NONCE = -1L;

  private final CryptoProvider provider;
  private final AeadAlgorithm algorithm;
  private final byte[] nonce = new byte[AeadAlgorithm.NONCE_BYTES];
  private byte[] key;
  private Aead aead;
  private long n;

  CipherState(CryptoProvider provider, AeadAlgorithm algorithm) {
    this.provider = provider;
    this.algorithm = algorithm;
  }

  /** §5.1 InitializeKey(key): sets k and n = 0. */
  void initializeKey(byte[] k) {
    key = k.clone();
    aead = provider.newAead(algorithm, key);
    n = 0;
  }

  /** §5.1 HasKey(). */
  public boolean hasKey() {
    return key != null;
  }

  /** The next nonce (for tests). */
  long nonce() {
    return n;
  }

  private void encodeNonce(long value) {
    Arrays.fill(nonce, 0, 4, (byte) 0);
    for (int i = 0; i < 8; i++) {
      byte b = (byte) (value >>> (8 * i));
      if (algorithm == AeadAlgorithm.CHACHA20_POLY1305) {
        nonce[4 + i] = b;
      } else {
        nonce[11 - i] = b;
      }
    }
  }

  /**
   * §5.1 EncryptWithAd(ad, plaintext): with a key, AEAD-encrypts under nonce n++; without one,
   * copies the plaintext.
   *
   * @return the bytes written to {@code out}
   */
  public int encryptWithAd(byte[] ad, byte[] in, int inOff, int len, byte[] out, int outOff)
      throws HandshakeException {
    if (!hasKey()) {
      System.arraycopy(in, inOff, out, outOff, len);
      return len;
    }
    if (n == MAX_NONCE) {
      throw new HandshakeException(HandshakeError.UNEXPECTED_MESSAGE, "Noise nonce exhausted");
    }
    encodeNonce(n);
    int written = aead.seal(nonce, ad, 0, ad.length, in, inOff, len, out, outOff);
    n++;
    return written;
  }

  /**
   * §5.1 DecryptWithAd(ad, ciphertext): on an authentication failure n is not incremented.
   *
   * @return the plaintext length
   * @throws HandshakeException AUTHENTICATION_FAILED if the ciphertext is not authentic
   */
  public int decryptWithAd(byte[] ad, byte[] in, int inOff, int len, byte[] out, int outOff)
      throws HandshakeException {
    if (!hasKey()) {
      System.arraycopy(in, inOff, out, outOff, len);
      return len;
    }
    if (n == MAX_NONCE) {
      throw new HandshakeException(HandshakeError.UNEXPECTED_MESSAGE, "Noise nonce exhausted");
    }
    encodeNonce(n);
    int plain = aead.open(nonce, ad, 0, ad.length, in, inOff, len, out, outOff);
    if (plain < 0) {
      throw new HandshakeException(HandshakeError.AUTHENTICATION_FAILED,
          "a Noise ciphertext of " + len + " bytes did not authenticate");
    }
    n++;
    return plain;
  }
}
