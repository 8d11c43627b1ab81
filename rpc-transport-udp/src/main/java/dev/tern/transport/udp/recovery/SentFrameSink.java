package dev.tern.transport.udp.recovery;

/**
 * Where recovery reports the fate of sent frames: the connection re-queues what was lost and
 * releases what was acknowledged. Primitive arguments only, so that reporting allocates nothing.
 */
public interface SentFrameSink {
  /** A frame was in a packet that was acknowledged. */
  void onFrameAcked(byte type, long a, long b, int length);

  /**
   * A frame was in a packet declared lost, or is to be repeated by a probe: re-queue it.
   *
   * @param type a {@link SentFrameType}
   */
  void onFrameLost(byte type, long a, long b, int length);
}
