package dev.tern.transport.udp.sim;

import java.nio.ByteBuffer;

/**
 * The bytes the simulated RPCs carry: a pure function of (seed, stream, direction, offset), so
 * the receiver checks every byte arrives exactly once, in order, unaltered.
 */
final class Content {
  private Content() {}

  static byte at(long seed, long streamId, int direction, long offset) {
    long h = seed ^ (streamId * 0x9E3779B97F4A7C15L) ^ (direction * 0xC2B2AE3D27D4EB4FL)
        ^ (offset * 0x165667B19E3779F9L);
    h ^= h >>> 29;
    h *= 0xBF58476D1CE4E5B9L;
    return (byte) (h ^ (h >>> 32));
  }

  /** Fills {@code out} (from position to limit) with the content starting at {@code offset}. */
  static void fill(ByteBuffer out, long seed, long streamId, int direction, long offset) {
    for (int i = out.position(); i < out.limit(); i++) {
      out.put(i, at(seed, streamId, direction, offset + (i - out.position())));
    }
  }
}
