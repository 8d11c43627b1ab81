package dev.tern.transport.udp.congestion;

import java.util.Arrays;

/**
 * Delivery-rate samples as draft-cheng-iccrg-delivery-rate-estimation describes: each sent packet
 * remembers how much had been delivered when it left; its acknowledgement then yields the rate
 * over the interval between the two. Per-packet state lives in a ring indexed by packet number
 * (packet numbers only grow, RFC 9000 §12.3), so steady state allocates nothing; the ring doubles
 * only when more packets are outstanding than it holds.
 *
 * <p>Call {@link #onPacketAcked} for each newly acknowledged packet of an ACK frame, then
 * {@link #generateSample} once; the sample's fields then describe that frame.
 */
public final class DeliveryRateEstimator {
  private static final long NONE = -1;

  // Connection state, draft §3.1.
  private long deliveredBytes;
  private long deliveredTimeNs;
  private long firstSentTimeNs;
  private long lostBytes;
  /** draft §3.3.4: C.app_limited, the delivered count that ends the app-limited phase; 0 if none. */
  private long appLimitedUntilBytes;

  // Per-packet state, draft §3.2.
  private long[] slotPn;
  private long[] slotDelivered;
  private long[] slotDeliveredTimeNs;
  private long[] slotFirstSentTimeNs;
  private long[] slotSentTimeNs;
  private long[] slotTxInFlight;
  private long[] slotLost;
  private boolean[] slotAppLimited;
  private int mask;

  // The rate sample being built for the current ACK frame, draft §3.1 "rs".
  private long rsPriorDelivered = NONE;
  private long rsPriorTimeNs;
  private long rsSendElapsedNs;
  private long rsAckElapsedNs;
  private long rsTxInFlight;
  private long rsPriorLost;
  private boolean rsAppLimited;
  private long rsNewlyAckedBytes;
  private long rsNewlyLostBytes;
  private long rsLastSentPn = NONE;

  // The finished sample.
  private long sampleRateBytesPerSecond;
  private long sampleDeliveredBytes;
  private long sampleIntervalNs;
  private boolean sampleValid;
  private boolean samplePresent;
  private boolean sampleAppLimited;
  private long samplePriorDelivered;
  private long sampleTxInFlight;
  private long sampleLostBytes;
  private long sampleNewlyAckedBytes;
  private long sampleNewlyLostBytes;

  /** An estimator with room for {@code initialCapacity} outstanding packets (rounded up). */
  public DeliveryRateEstimator(int initialCapacity) {
    if (initialCapacity < 1) {
      throw new IllegalArgumentException("initialCapacity must be positive, was " + initialCapacity);
    }
    allocate(Integer.highestOneBit(Math.max(16, initialCapacity - 1)) << 1);
  }

  private void allocate(int capacity) {
    slotPn = new long[capacity];
    Arrays.fill(slotPn, NONE);
    slotDelivered = new long[capacity];
    slotDeliveredTimeNs = new long[capacity];
    slotFirstSentTimeNs = new long[capacity];
    slotSentTimeNs = new long[capacity];
    slotTxInFlight = new long[capacity];
    slotLost = new long[capacity];
    slotAppLimited = new boolean[capacity];
    mask = capacity - 1;
  }

  /**
   * A packet counted in flight was sent (draft §3.2 "Upon Sending a Packet").
   *
   * @param bytesInFlight bytes in flight including this packet
   */
  public void onPacketSent(long nowNs, long packetNumber, int bytes, long bytesInFlight) {
    if (bytesInFlight - bytes <= 0) {
      // Nothing was in flight: the sending interval and the ACK interval restart here.
      firstSentTimeNs = nowNs;
      deliveredTimeNs = nowNs;
    }
    int i = (int) (packetNumber & mask);
    while (slotPn[i] != NONE && slotPn[i] != packetNumber) {
      grow();
      i = (int) (packetNumber & mask);
    }
    slotPn[i] = packetNumber;
    slotDelivered[i] = deliveredBytes;
    slotDeliveredTimeNs[i] = deliveredTimeNs;
    slotFirstSentTimeNs[i] = firstSentTimeNs;
    slotSentTimeNs[i] = nowNs;
    slotTxInFlight[i] = bytesInFlight;
    slotLost[i] = lostBytes;
    slotAppLimited[i] = appLimitedUntilBytes != 0;
  }

  private void grow() {
    long[] pn = slotPn;
    long[] del = slotDelivered;
    long[] delT = slotDeliveredTimeNs;
    long[] first = slotFirstSentTimeNs;
    long[] sent = slotSentTimeNs;
    long[] tx = slotTxInFlight;
    long[] lost = slotLost;
    boolean[] app = slotAppLimited;
    allocate(pn.length * 2);
    for (int j = 0; j < pn.length; j++) {
      if (pn[j] != NONE) {
        int i = (int) (pn[j] & mask);
        slotPn[i] = pn[j];
        slotDelivered[i] = del[j];
        slotDeliveredTimeNs[i] = delT[j];
        slotFirstSentTimeNs[i] = first[j];
        slotSentTimeNs[i] = sent[j];
        slotTxInFlight[i] = tx[j];
        slotLost[i] = lost[j];
        slotAppLimited[i] = app[j];
      }
    }
  }

  /** The sender ran out of data (draft §3.3.4): samples until then are application-limited. */
  public void onApplicationLimited(long bytesInFlight) {
    appLimitedUntilBytes = Math.max(1, deliveredBytes + bytesInFlight);
  }

  /** A packet was newly acknowledged (draft §3.3 "Upon Receiving an ACK"). */
  public void onPacketAcked(long nowNs, long packetNumber, int bytes) {
    deliveredBytes += bytes;
    deliveredTimeNs = nowNs;
    rsNewlyAckedBytes += bytes;
    int i = (int) (packetNumber & mask);
    if (slotPn[i] != packetNumber) {
      return;
    }
    slotPn[i] = NONE;
    // draft §3.3: the sample follows the most recently sent of the acknowledged packets.
    if (rsLastSentPn == NONE || packetNumber > rsLastSentPn) {
      rsLastSentPn = packetNumber;
      rsPriorDelivered = slotDelivered[i];
      rsPriorTimeNs = slotDeliveredTimeNs[i];
      rsAppLimited = slotAppLimited[i];
      rsSendElapsedNs = slotSentTimeNs[i] - slotFirstSentTimeNs[i];
      rsAckElapsedNs = nowNs - slotDeliveredTimeNs[i];
      rsTxInFlight = slotTxInFlight[i];
      rsPriorLost = slotLost[i];
      firstSentTimeNs = slotSentTimeNs[i];
    }
  }

  /**
   * A packet sent will be neither acknowledged nor declared lost (its space discarded, a lost
   * path-MTU probe): its slot is freed. A slot left holding it would collide with every later
   * packet that maps to it, and each collision doubles the ring: over a long connection the ring
   * grew to the whole sending sequence (88 MiB in a 30-minute soak run).
   */
  public void onPacketDiscarded(long packetNumber) {
    int i = (int) (packetNumber & mask);
    if (slotPn[i] == packetNumber) {
      slotPn[i] = NONE;
    }
  }

  /** Slots in the ring now. */
  int capacity() {
    return slotPn.length;
  }

  /** A packet was declared lost. */
  public void onPacketLost(long packetNumber, int bytes) {
    lostBytes += bytes;
    rsNewlyLostBytes += bytes;
    int i = (int) (packetNumber & mask);
    if (slotPn[i] == packetNumber) {
      slotPn[i] = NONE;
    }
  }

  /**
   * Finishes the sample for this ACK frame (draft §3.3 "Upon Receiving an ACK", last step).
   * Returns whether a valid rate came out; the sample's accessors answer until the next call.
   */
  public boolean generateSample(long minRttNs) {
    if (appLimitedUntilBytes != 0 && deliveredBytes > appLimitedUntilBytes) {
      appLimitedUntilBytes = 0;
    }
    sampleNewlyAckedBytes = rsNewlyAckedBytes;
    sampleNewlyLostBytes = rsNewlyLostBytes;
    rsNewlyAckedBytes = 0;
    rsNewlyLostBytes = 0;
    sampleValid = false;
    samplePresent = rsPriorDelivered != NONE;
    if (!samplePresent) {
      return false;
    }
    sampleDeliveredBytes = deliveredBytes - rsPriorDelivered;
    samplePriorDelivered = rsPriorDelivered;
    sampleAppLimited = rsAppLimited;
    sampleTxInFlight = rsTxInFlight;
    sampleLostBytes = lostBytes - rsPriorLost;
    // draft §3.3: the longer of the send and ACK intervals, so ACK compression cannot inflate the
    // rate; an interval shorter than min RTT is too short to trust.
    sampleIntervalNs = Math.max(rsSendElapsedNs, rsAckElapsedNs);
    rsPriorDelivered = NONE;
    rsLastSentPn = NONE;
    if (sampleIntervalNs <= 0 || (minRttNs != Long.MAX_VALUE && sampleIntervalNs < minRttNs)) {
      return false;
    }
    sampleRateBytesPerSecond = (long) (sampleDeliveredBytes * 1e9 / sampleIntervalNs);
    sampleValid = true;
    return true;
  }

  /** Whether the last ACK frame acknowledged a packet this estimator tracked. */
  public boolean samplePresent() {
    return samplePresent;
  }

  /** Whether the last {@link #generateSample} produced a rate. */
  public boolean sampleValid() {
    return sampleValid;
  }

  /** The last sample's delivery rate, bytes per second. */
  public long sampleRateBytesPerSecond() {
    return sampleRateBytesPerSecond;
  }

  /** Whether the last sample was taken while the sender was application-limited. */
  public boolean sampleAppLimited() {
    return sampleAppLimited;
  }

  /** Bytes delivered when the sample's packet was sent (BBR's round counting uses it). */
  public long samplePriorDeliveredBytes() {
    return samplePriorDelivered;
  }

  /** Bytes in flight when the sample's packet was sent, including it. */
  public long sampleTxInFlightBytes() {
    return sampleTxInFlight;
  }

  /** Bytes declared lost between the sample's packet's send and this ACK. */
  public long sampleLostBytes() {
    return sampleLostBytes;
  }

  /** Bytes delivered over the sample's interval. */
  public long sampleDeliveredBytes() {
    return sampleDeliveredBytes;
  }

  /** Bytes newly acknowledged by this ACK frame. */
  public long newlyAckedBytes() {
    return sampleNewlyAckedBytes;
  }

  /** Bytes newly declared lost since the previous sample. */
  public long newlyLostBytes() {
    return sampleNewlyLostBytes;
  }

  /** Bytes delivered over the connection's life. */
  public long deliveredBytes() {
    return deliveredBytes;
  }

  /** Bytes declared lost over the connection's life. */
  public long lostBytes() {
    return lostBytes;
  }

  /** Whether the sender is in an application-limited phase. */
  public boolean appLimited() {
    return appLimitedUntilBytes != 0;
  }
}
