package dev.tern.transport.udp.recovery;

/**
 * Sent packets still awaiting their fate (RFC 9002 §A.1), without per-packet allocation: records
 * live in parallel arrays of a ring indexed by packet number, their frames in a second ring.
 * Both rings grow by doubling (only while the window grows), up to {@link #MAX_PACKETS}.
 *
 * <p>Packet numbers must be recorded consecutively: a number the sender skips on purpose (RFC
 * 9000 §21.4, {@link LossDetector#skipPacketNumbers}) is recorded as a packet of no bytes,
 * closed at once.
 */
public final class SentPacketLog {
  /** Most packets tracked at once; the sender stops when the log is full. */
  public static final int MAX_PACKETS = 1 << 15;

  static final byte IN_FLIGHT = 1;
  static final byte ACK_ELICITING = 2;
  static final byte DONE = 4;
  static final byte URGENT = 8;
  static final byte ACKED = 16;

  private long firstPn; // smallest packet number still tracked
  private long nextPn; // next packet number to be recorded
  private int packetMask;
  private long[] sentTimeNs;
  private int[] sizeBytes;
  private byte[] flags;
  private int[] frameStart;
  private int[] frameCount;
  private long[] sequence;

  private int frameMask;
  private int frameHead; // index of the oldest frame record still needed (monotonic counter)
  private int frameTail; // next frame record index (monotonic counter)
  private byte[] fType;
  private long[] fA;
  private long[] fB;
  private int[] fLength;

  private int openPackets;

  /** An empty log with room for 64 packets and 256 frames before it first grows. */
  public SentPacketLog() {
    allocPackets(64);
    allocFrames(256);
  }

  private void allocPackets(int capacity) {
    packetMask = capacity - 1;
    sentTimeNs = new long[capacity];
    sizeBytes = new int[capacity];
    flags = new byte[capacity];
    frameStart = new int[capacity];
    frameCount = new int[capacity];
    sequence = new long[capacity];
  }

  private void allocFrames(int capacity) {
    frameMask = capacity - 1;
    fType = new byte[capacity];
    fA = new long[capacity];
    fB = new long[capacity];
    fLength = new int[capacity];
  }

  /** Whether another packet can be recorded. */
  public boolean hasRoom() {
    return nextPn - firstPn < MAX_PACKETS;
  }

  /** The next packet number the sender must use. */
  public long nextPacketNumber() {
    return nextPn;
  }

  /** The smallest packet number still tracked. */
  public long firstPacketNumber() {
    return firstPn;
  }

  /** Packets neither acknowledged nor lost. */
  public int openPackets() {
    return openPackets;
  }

  /** Starts recording packet {@link #nextPacketNumber()}; frames follow with {@link #addFrame}. */
  public long beginPacket() {
    if (nextPn - firstPn > packetMask) {
      growPackets();
    }
    int slot = (int) (nextPn & packetMask);
    frameStart[slot] = frameTail;
    frameCount[slot] = 0;
    flags[slot] = 0;
    return nextPn;
  }

  /** Records a frame of the packet begun last. */
  public void addFrame(byte type, long a, long b, int length) {
    if (frameTail - frameHead > frameMask) {
      growFrames();
    }
    int i = frameTail & frameMask;
    fType[i] = type;
    fA[i] = a;
    fB[i] = b;
    fLength[i] = length;
    frameTail++;
    frameCount[(int) (nextPn & packetMask)]++;
  }

  /** Finishes the packet begun last. */
  public void endPacket(long sentTimeNs, int bytes, boolean ackEliciting, boolean inFlight) {
    endPacket(sentTimeNs, bytes, ackEliciting, inFlight, false);
  }

  /** Finishes the packet begun last; {@code urgent}: it carried an urgent stream's data. */
  public void endPacket(long sentTimeNs, int bytes, boolean ackEliciting, boolean inFlight,
      boolean urgent) {
    endPacket(sentTimeNs, bytes, ackEliciting, inFlight, urgent, nextPn);
  }

  /**
   * As {@link #endPacket(long, int, boolean, boolean, boolean)}; {@code sequence} is the packet's
   * number in the connection-wide order of sending across packet-number spaces, which the
   * congestion controller sees instead of the per-space packet number.
   */
  public void endPacket(long sentTimeNs, int bytes, boolean ackEliciting, boolean inFlight,
      boolean urgent, long sequence) {
    int slot = (int) (nextPn & packetMask);
    this.sequence[slot] = sequence;
    this.sentTimeNs[slot] = sentTimeNs;
    sizeBytes[slot] = bytes;
    flags[slot] = (byte) ((ackEliciting ? ACK_ELICITING : 0) | (inFlight ? IN_FLIGHT : 0)
        | (urgent ? URGENT : 0));
    nextPn++;
    openPackets++;
  }

  /** The connection-wide sending sequence number of tracked packet {@code pn}. */
  public long sequence(long pn) {
    return sequence[(int) (pn & packetMask)];
  }

  /** Whether {@code pn} is tracked and neither acknowledged nor lost. */
  public boolean isOpen(long pn) {
    return pn >= firstPn && pn < nextPn && (flags[(int) (pn & packetMask)] & DONE) == 0;
  }

  /** When {@code pn} was sent (valid while tracked). */
  public long sentTimeNs(long pn) {
    return sentTimeNs[(int) (pn & packetMask)];
  }

  /** The size of {@code pn} in bytes (valid while tracked). */
  public int sizeBytes(long pn) {
    return sizeBytes[(int) (pn & packetMask)];
  }

  /** Whether {@code pn} counts toward bytes in flight. */
  public boolean isInFlight(long pn) {
    return (flags[(int) (pn & packetMask)] & IN_FLIGHT) != 0;
  }

  /** Whether {@code pn} carried data of an urgent stream (as the sender said when it ended it). */
  public boolean isUrgent(long pn) {
    return (flags[(int) (pn & packetMask)] & URGENT) != 0;
  }

  /**
   * Whether {@code pn} was acknowledged (valid while tracked): false while open, and for a packet
   * declared lost or never tracked for acknowledgement.
   */
  public boolean isAcked(long pn) {
    return (flags[(int) (pn & packetMask)] & ACKED) != 0;
  }

  /** Whether {@code pn} is ack-eliciting. */
  public boolean isAckEliciting(long pn) {
    return (flags[(int) (pn & packetMask)] & ACK_ELICITING) != 0;
  }

  /**
   * Marks {@code pn} done (acknowledged when {@code acked}, else lost) and reports its frames to
   * {@code sink}. The caller checked {@link #isOpen}.
   */
  public void close(long pn, boolean acked, SentFrameSink sink) {
    int slot = (int) (pn & packetMask);
    flags[slot] |= acked ? (byte) (DONE | ACKED) : DONE;
    openPackets--;
    forEachFrame(pn, acked, sink);
    trim();
  }

  /** Reports the frames of an open packet as lost without closing it (a PTO probe repeats it). */
  public void repeat(long pn, SentFrameSink sink) {
    forEachFrame(pn, false, sink);
  }

  /**
   * Whether packet {@code pn} carried a frame a loss would re-queue: anything but ACK and PING
   * (a PMTU probe, a keep-alive or an earlier probe carries nothing to repeat).
   */
  public boolean carriesRetransmittable(long pn) {
    int slot = (int) (pn & packetMask);
    int start = frameStart[slot];
    int count = frameCount[slot];
    for (int k = 0; k < count; k++) {
      byte t = fType[(start + k) & frameMask];
      if (t != SentFrameType.ACK && t != SentFrameType.PING) {
        return true;
      }
    }
    return false;
  }

  private void forEachFrame(long pn, boolean acked, SentFrameSink sink) {
    int slot = (int) (pn & packetMask);
    int start = frameStart[slot];
    int count = frameCount[slot];
    for (int k = 0; k < count; k++) {
      int i = (start + k) & frameMask;
      if (acked) {
        sink.onFrameAcked(fType[i], fA[i], fB[i], fLength[i]);
      } else {
        sink.onFrameLost(fType[i], fA[i], fB[i], fLength[i]);
      }
    }
  }

  private void trim() {
    while (firstPn < nextPn && (flags[(int) (firstPn & packetMask)] & DONE) != 0) {
      firstPn++;
    }
    frameHead = firstPn < nextPn ? frameStart[(int) (firstPn & packetMask)] : frameTail;
  }

  private void growPackets() {
    int oldCap = packetMask + 1;
    long[] t = sentTimeNs;
    int[] s = sizeBytes;
    byte[] f = flags;
    int[] fs = frameStart;
    int[] fc = frameCount;
    long[] q = sequence;
    int oldMask = packetMask;
    allocPackets(oldCap * 2);
    for (long pn = firstPn; pn < nextPn; pn++) {
      int o = (int) (pn & oldMask);
      int n = (int) (pn & packetMask);
      sentTimeNs[n] = t[o];
      sizeBytes[n] = s[o];
      flags[n] = f[o];
      frameStart[n] = fs[o];
      frameCount[n] = fc[o];
      sequence[n] = q[o];
    }
  }

  private void growFrames() {
    int oldMask = frameMask;
    byte[] t = fType;
    long[] a = fA;
    long[] b = fB;
    int[] l = fLength;
    allocFrames((oldMask + 1) * 2);
    for (int i = frameHead; i != frameTail; i++) {
      int o = i & oldMask;
      int n = i & frameMask;
      fType[n] = t[o];
      fA[n] = a[o];
      fB[n] = b[o];
      fLength[n] = l[o];
    }
  }
}
