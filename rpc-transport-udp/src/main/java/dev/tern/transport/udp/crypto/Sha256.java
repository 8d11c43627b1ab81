package dev.tern.transport.udp.crypto;

/** SHA-256 (FIPS 180-4). Not thread-safe. */
public interface Sha256 {

  /** Output length. */
  int OUTPUT_BYTES = 32;

  /** Adds bytes. */
  void update(byte[] in, int off, int len);

  /** Finishes, writing {@link #OUTPUT_BYTES} at {@code out[off]}, and resets. */
  void doFinal(byte[] out, int off);
}
