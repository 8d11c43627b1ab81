package dev.tern.transport.udp.crypto;

import java.security.GeneralSecurityException;
import java.util.Arrays;
import javax.crypto.Cipher;
import javax.crypto.spec.ChaCha20ParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.codehaus.mojo.animal_sniffer.IgnoreJRERequirement;

/** The JCA-backed pieces of {@link JdkCryptoProvider}. */
final class JdkCrypto {
  private JdkCrypto() {}

  /** A JCA factory call. */
  interface Factory<T> {
    T get() throws GeneralSecurityException;
  }

  static <T> T instance(Factory<T> f) {
    try {
      return f.get();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("JCA algorithm missing: " + e.getMessage(), e);
    }
  }

  static void checkLength(String name, byte[] value, int expected) {
    if (value == null || value.length != expected) {
      throw new IllegalArgumentException(name + " must be " + expected + " bytes, got "
          + (value == null ? "null" : value.length + " bytes"));
    }
  }

  /** RFC 9001 §5.4.3: mask = AES-ECB(hp_key, sample). */
  static final class AesHeaderMask implements HeaderMask {
    private final Cipher ecb;
    private final byte[] block = new byte[16];

    AesHeaderMask(AeadAlgorithm algorithm, byte[] hpKey) {
      checkLength("hpKey", hpKey, algorithm.keyBytes());
      ecb = instance(() -> Cipher.getInstance("AES/ECB/NoPadding"));
      try {
        ecb.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(hpKey, "AES"));
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("AES refused the header-protection key", e);
      }
    }

    @Override
    public void mask(byte[] sample, int off, byte[] mask) {
      try {
        // ECB without padding keeps no state between blocks, so update() suffices and the
        // cipher stays initialised for the next packet.
        ecb.update(sample, off, SAMPLE_BYTES, block, 0);
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("AES-ECB failed", e);
      }
      System.arraycopy(block, 0, mask, 0, MASK_BYTES);
    }
  }

  /**
   * RFC 9001 §5.4.4: counter = sample[0..3] little-endian, nonce = sample[4..15], mask =
   * ChaCha20(hp_key, counter, nonce, five zero bytes). The JCA refuses to initialise ChaCha20
   * twice in a row with the same key and nonce (in either mode), which a duplicated packet or a
   * sample repeating its nonce would do: the same sample reuses the previous mask, and a new
   * counter with the previous nonce first initialises with another nonce.
   */
  static final class ChaChaHeaderMask implements HeaderMask {
    private static final byte[] ZEROS = new byte[MASK_BYTES];
    private final Cipher chacha;
    private final SecretKeySpec key;
    private final byte[] nonce = new byte[12];
    private final byte[] lastNonce = new byte[12];
    private final byte[] lastMask = new byte[MASK_BYTES];
    private int lastCounter;
    private boolean used;

    ChaChaHeaderMask(byte[] hpKey) {
      checkLength("hpKey", hpKey, AeadAlgorithm.CHACHA20_POLY1305.keyBytes());
      chacha = instance(() -> Cipher.getInstance("ChaCha20"));
      key = new SecretKeySpec(hpKey, "ChaCha20");
    }

    // ChaCha20ParameterSpec is Java 11: this never runs on Android (JdkCryptoProvider).
    @Override
    @IgnoreJRERequirement
    public void mask(byte[] sample, int off, byte[] mask) {
      int counter = (sample[off] & 0xff) | (sample[off + 1] & 0xff) << 8
          | (sample[off + 2] & 0xff) << 16 | (sample[off + 3] & 0xff) << 24;
      System.arraycopy(sample, off + 4, nonce, 0, 12);
      boolean sameNonce = used && Arrays.equals(nonce, lastNonce);
      if (sameNonce && counter == lastCounter) {
        System.arraycopy(lastMask, 0, mask, 0, MASK_BYTES);
        return;
      }
      try {
        if (sameNonce) {
          lastNonce[0] ^= 1;
          chacha.init(Cipher.ENCRYPT_MODE, key, new ChaCha20ParameterSpec(lastNonce, 0));
        }
        chacha.init(Cipher.ENCRYPT_MODE, key, new ChaCha20ParameterSpec(nonce, counter));
        chacha.doFinal(ZEROS, 0, MASK_BYTES, mask, 0);
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("ChaCha20 failed", e);
      }
      System.arraycopy(nonce, 0, lastNonce, 0, 12);
      System.arraycopy(mask, 0, lastMask, 0, MASK_BYTES);
      lastCounter = counter;
      used = true;
    }
  }
}
