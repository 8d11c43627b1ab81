package dev.tern.transport.udp.packet;

import java.nio.ByteBuffer;

/** Packet-number truncation and reconstruction (RFC 9000 §17.1, Appendix A.2 and A.3). */
public final class PacketNumber {
  /** The largest packet number, 2^62-1. */
  public static final long MAX = (1L << 62) - 1;

  private PacketNumber() {}

  /**
   * The number of bytes (1-4) to encode {@code packetNumber} with, given the largest packet
   * number the peer acknowledged ({@code -1} if none). RFC 9000 Appendix A.2: enough bits for
   * twice the number of unacknowledged packets, plus one.
   */
  public static int encodedLength(long packetNumber, long largestAcked) {
    long unacked = largestAcked < 0 ? packetNumber + 1 : packetNumber - largestAcked;
    long range = 2 * unacked + 1;
    if (range <= 0xffL) {
      return 1;
    }
    if (range <= 0xffffL) {
      return 2;
    }
    if (range <= 0xffffffL) {
      return 3;
    }
    return 4;
  }

  /** Writes the low {@code length} bytes of {@code packetNumber}. */
  public static void write(ByteBuffer out, long packetNumber, int length) {
    for (int i = length - 1; i >= 0; i--) {
      out.put((byte) (packetNumber >>> (8 * i)));
    }
  }

  /**
   * Reconstructs a full packet number from its truncated form (RFC 9000 Appendix A.3).
   *
   * @param largestReceived the largest packet number received so far, {@code -1} if none
   * @param truncated the packet number bits as read
   * @param bits how many bits were read (8, 16, 24 or 32)
   */
  public static long decode(long largestReceived, long truncated, int bits) {
    long expected = largestReceived + 1;
    long win = 1L << bits;
    long hwin = win / 2;
    long mask = win - 1;
    long candidate = (expected & ~mask) | truncated;
    if (candidate <= expected - hwin && candidate < (1L << 62) - win) {
      return candidate + win;
    }
    if (candidate > expected + hwin && candidate >= win) {
      return candidate - win;
    }
    return candidate;
  }
}
