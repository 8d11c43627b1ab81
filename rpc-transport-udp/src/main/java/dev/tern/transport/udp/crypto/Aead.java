package dev.tern.transport.udp.crypto;

/**
 * One AEAD key, reused for many messages. Each call takes its own 12-byte nonce; the
 * implementation keeps its cipher objects between calls (no per-call provider look-up).
 * Input and output may be the same array at the same offset (in-place). Not thread-safe.
 */
public interface Aead {

  /** The algorithm. */
  AeadAlgorithm algorithm();

  /**
   * Encrypts {@code len} bytes at {@code in[inOff]} to {@code out[outOff]} and appends the tag.
   *
   * @return bytes written: {@code len + AeadAlgorithm.TAG_BYTES}
   */
  int seal(byte[] nonce, byte[] aad, int aadOff, int aadLen, byte[] in, int inOff, int len,
      byte[] out, int outOff);

  /**
   * Authenticates and decrypts {@code len} bytes (ciphertext and tag) at {@code in[inOff]} to
   * {@code out[outOff]}.
   *
   * @return the plaintext length, or -1 if the message is not authentic (nothing useful has then
   *     been written: callers must not read {@code out})
   */
  int open(byte[] nonce, byte[] aad, int aadOff, int aadLen, byte[] in, int inOff, int len,
      byte[] out, int outOff);
}
