package dev.tern.transport.udp.crypto;

import org.bouncycastle.crypto.BlockCipher;
import org.bouncycastle.crypto.engines.AESEngine;
import org.bouncycastle.crypto.engines.ChaCha7539Engine;
import org.bouncycastle.crypto.params.KeyParameter;
import org.bouncycastle.crypto.params.ParametersWithIV;

/** BouncyCastle's header-protection masks (RFC 9001 §5.4.3, §5.4.4). */
final class BcHeaderMasks {
  private BcHeaderMasks() {}

  /** RFC 9001 §5.4.3: mask = AES-ECB(hp_key, sample), one raw AES block. */
  static final class Aes implements HeaderMask {
    private final BlockCipher aes = AESEngine.newInstance();
    private final byte[] block = new byte[16];

    Aes(AeadAlgorithm algorithm, byte[] hpKey) {
      JdkCrypto.checkLength("hpKey", hpKey, algorithm.keyBytes());
      aes.init(true, new KeyParameter(hpKey));
    }

    @Override
    public void mask(byte[] sample, int off, byte[] mask) {
      aes.processBlock(sample, off, block, 0);
      System.arraycopy(block, 0, mask, 0, MASK_BYTES);
    }
  }

  /**
   * RFC 9001 §5.4.4: ChaCha20 (RFC 8439 §2.4) with counter = sample[0..3] little-endian and nonce
   * = sample[4..15], applied to five zero bytes. The block counter is reached by seeking to
   * counter x 64 bytes. The nonce goes in through one {@link ParametersWithIV} made once, whose IV
   * array is overwritten per packet: the engine reads it into its state inside {@code init} and
   * never looks at it again, so nothing is allocated per mask.
   */
  static final class ChaCha implements HeaderMask {
    private static final byte[] ZEROS = new byte[MASK_BYTES];
    private final ChaCha7539Engine chacha = new ChaCha7539Engine();
    private final ParametersWithIV nonce = new ParametersWithIV(null, new byte[12]);
    private ParametersWithIV keyed;

    ChaCha(byte[] hpKey) {
      JdkCrypto.checkLength("hpKey", hpKey, AeadAlgorithm.CHACHA20_POLY1305.keyBytes());
      keyed = new ParametersWithIV(new KeyParameter(hpKey), new byte[12]);
    }

    @Override
    public void mask(byte[] sample, int off, byte[] mask) {
      long counter = (sample[off] & 0xffL) | (sample[off + 1] & 0xffL) << 8
          | (sample[off + 2] & 0xffL) << 16 | (sample[off + 3] & 0xffL) << 24;
      // The first mask carries the key; later ones a null key, which keeps it.
      ParametersWithIV p = keyed != null ? keyed : nonce;
      System.arraycopy(sample, off + 4, p.getIV(), 0, 12);
      chacha.init(true, p);
      keyed = null;
      chacha.seekTo(counter * 64);
      chacha.processBytes(ZEROS, 0, MASK_BYTES, mask, 0);
    }
  }
}
