package dev.tern.transport.udp.crypto;

/**
 * The header-protection mask function of RFC 9001 §5.4.1 for one header-protection key:
 * AES-ECB of the sample (§5.4.3) or ChaCha20 keyed by the sample (§5.4.4). Not thread-safe.
 */
public interface HeaderMask {

  /** Bytes of ciphertext sampled (RFC 9001 §5.4.2). */
  int SAMPLE_BYTES = 16;
  /** Bytes of mask used: one for the first byte, up to four for the packet number. */
  int MASK_BYTES = 5;

  /** Writes the {@link #MASK_BYTES}-byte mask for the sample at {@code sample[off]} into {@code mask}. */
  void mask(byte[] sample, int off, byte[] mask);
}
