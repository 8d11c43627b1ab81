package dev.tern.transport.udp.crypto;

/** HMAC-SHA256 (RFC 2104) with a key set per computation. Not thread-safe. */
public interface Hmac {

  /** Output length of HMAC-SHA256. */
  int OUTPUT_BYTES = 32;

  /** Starts a computation under {@code key} (any length). */
  void init(byte[] key);

  /** Adds bytes. */
  void update(byte[] in, int off, int len);

  /** Finishes, writing {@link #OUTPUT_BYTES} at {@code out[off]}; {@link #init} comes next. */
  void doFinal(byte[] out, int off);
}
