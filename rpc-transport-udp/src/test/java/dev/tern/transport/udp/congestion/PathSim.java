package dev.tern.transport.udp.congestion;

import dev.tern.netlab.link.Delivery;
import dev.tern.netlab.link.Link;
import dev.tern.netlab.link.LinkConfig;
import dev.tern.netlab.link.TraceSchedule;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.PriorityQueue;

/**
 * A small discrete-event bottleneck for exercising controllers and the pacer in virtual time:
 * senders with a controller, a pacer, an RTT estimator and RFC 9002 loss detection (packet
 * threshold 3, time threshold 9/8, a probe timeout), the data direction through netlab's link
 * model (rate or trace, drop-tail queue, random or bursty loss, jitter, reordering), ACKs back
 * over the propagation delay, and a receiver that acknowledges every packet at once. It stands in for the connection until the whole-connection simulator carries these tests.
 */
final class PathSim {
  static final int MSS = 1350;

  final long oneWayNs;
  final long timerGranularityNs = 1_000_000L;
  private final Link link;
  private final Delivery delivery = new Delivery();
  private final PriorityQueue<Event> events = new PriorityQueue<>();
  private final List<Flow> flows = new ArrayList<>();
  private long nowNs;
  private long seq;
  /** Queueing delay (one-way delay above propagation and serialisation) of delivered packets. */
  long[] queueDelaysNs = new long[1 << 16];
  int queueDelayCount;
  /**
   * Self-inflicted queueing delay of delivered packets on a trace link: the packet's departure
   * from the bottleneck minus the departure it would have had with the queue empty when it
   * arrived (the first delivery opportunity at or after that instant, as the link would seek
   * it). What remains is the time spent behind the sender's own earlier packets; the wait for
   * the trace's next opportunity (its outages) is not counted, since no sender could avoid it.
   */
  long[] selfQueueDelaysNs = new long[1 << 16];
  /** Each self-inflicted delay's packet's departure from the bottleneck, in the same order. */
  long[] selfDepartNs = new long[1 << 16];
  int selfQueueDelayCount;
  private final TraceSchedule trace;

  /** A path whose data direction is {@code forward}; ACKs return over its propagation delay. */
  PathSim(LinkConfig forward, long seed) {
    this.link = new Link(forward, seed, 0);
    this.oneWayNs = forward.propagationDelayNs();
    this.trace = forward.trace();
  }

  /** A fixed-rate path with a drop-tail queue of {@code bufferBytes} and random loss. */
  PathSim(long rateBitsPerSecond, long rttNs, long bufferBytes, double lossProbability, long seed) {
    this(LinkConfig.builder().rateBitsPerSecond(rateBitsPerSecond).delayNs(rttNs / 2)
        .queueLimitBytes(bufferBytes).loss(lossProbability).build(), seed);
  }

  Flow addFlow(CongestionController cc, long startNs, long bytesToSend) {
    Flow f = new Flow(flows.size(), cc, bytesToSend);
    flows.add(f);
    schedule(startNs, Event.WAKE, f, -1);
    return f;
  }

  void run(long endNs) {
    while (!events.isEmpty() && events.peek().timeNs <= endNs) {
      Event e = events.poll();
      nowNs = e.timeNs;
      if (e.kind == Event.ACK) {
        e.flow.onAck(e.pn);
      } else if (e.kind == Event.PTO) {
        e.flow.onPtoCheck(e.pn);
      } else {
        e.flow.wakeScheduled = false;
      }
      e.flow.trySend();
    }
    nowNs = endNs;
  }

  /** Percentile {@code p} of the self-inflicted queueing delay (trace links only, else 0). */
  long percentileSelfQueueDelayNs(double p) {
    long[] d = Arrays.copyOf(selfQueueDelaysNs, selfQueueDelayCount);
    Arrays.sort(d);
    return d.length == 0 ? 0 : d[Math.min(d.length - 1, (int) (p * d.length))];
  }

  /**
   * Percentile {@code p} of the standing self-inflicted queue (trace links only, else 0): for each
   * delivered packet, the smallest self-inflicted delay among the packets that left the
   * bottleneck within {@code windowNs} before it (itself included). This is RFC 8289's standing
   * queue (CoDel §3: the minimum sojourn over an interval; a queue that drains within the interval
   * is a burst, one that does not is the standing queue) applied to the self-inflicted sojourn,
   * with the interval one base RTT: the fastest a sender can learn that its packets are queueing.
   * A sender that keeps more in flight than the link delivers keeps every packet of the window
   * behind its own earlier ones, so this stays as high as the plain measure; a burst queued
   * behind an outage, which the first packet after the outage does not wait for (it is
   * delivered at the first opportunity), counts only if it is still there a window later.
   */
  long percentileStandingSelfQueueNs(double p, long windowNs) {
    int n = selfQueueDelayCount;
    long[] standing = new long[n];
    int[] deque = new int[n]; // indices of increasing delay; the front is the window's minimum
    int head = 0;
    int tail = 0;
    for (int i = 0; i < n; i++) {
      if (i > 0 && selfDepartNs[i] < selfDepartNs[i - 1]) {
        throw new IllegalStateException("departures out of order at packet " + i
            + ": the standing queue needs a FIFO bottleneck");
      }
      while (tail > head && selfQueueDelaysNs[deque[tail - 1]] >= selfQueueDelaysNs[i]) {
        tail--;
      }
      deque[tail++] = i;
      while (selfDepartNs[deque[head]] < selfDepartNs[i] - windowNs) {
        head++;
      }
      standing[i] = selfQueueDelaysNs[deque[head]];
    }
    Arrays.sort(standing);
    return n == 0 ? 0 : standing[Math.min(n - 1, (int) (p * n))];
  }

  /** The first delivery opportunity of the trace at or after {@code tNs} (epoch 0). */
  private long firstOpportunityNs(long tNs) {
    long periodNs = trace.periodMs() * 1_000_000L;
    long cycle = tNs / periodNs;
    long ms = (tNs - cycle * periodNs + 999_999L) / 1_000_000L;
    int lo = 0;
    int hi = trace.size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (trace.opportunityMs(mid) < ms) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    if (lo == trace.size()) {
      return (cycle + 1) * periodNs + trace.opportunityMs(0) * 1_000_000L;
    }
    return cycle * periodNs + trace.opportunityMs(lo) * 1_000_000L;
  }

  long percentileQueueDelayNs(double p) {
    long[] d = Arrays.copyOf(queueDelaysNs, queueDelayCount);
    Arrays.sort(d);
    return d.length == 0 ? 0 : d[Math.min(d.length - 1, (int) (p * d.length))];
  }

  private void schedule(long timeNs, int kind, Flow flow, long pn) {
    events.add(new Event(timeNs, seq++, kind, flow, pn));
  }

  /** Puts a packet on the link; returns the time it reaches the receiver, or -1 if dropped. */
  private long transmit(int bytes) {
    if (link.send(nowNs, bytes, delivery) == 0) {
      return -1;
    }
    long at = delivery.deliverAtNs(0);
    if (queueDelayCount == queueDelaysNs.length) {
      queueDelaysNs = Arrays.copyOf(queueDelaysNs, queueDelayCount * 2);
    }
    queueDelaysNs[queueDelayCount++] = Math.max(0, at - nowNs - link.idealOneWayNs(bytes));
    if (trace != null) {
      if (selfQueueDelayCount == selfQueueDelaysNs.length) {
        selfQueueDelaysNs = Arrays.copyOf(selfQueueDelaysNs, selfQueueDelayCount * 2);
        selfDepartNs = Arrays.copyOf(selfDepartNs, selfQueueDelayCount * 2);
      }
      // Departure = delivery - propagation (trace links have no jitter in netlab's profiles).
      long departNs = at - oneWayNs;
      selfDepartNs[selfQueueDelayCount] = departNs;
      selfQueueDelaysNs[selfQueueDelayCount++] = Math.max(0, departNs - firstOpportunityNs(nowNs));
    }
    return at;
  }

  /** The link's counters. */
  Link link() {
    return link;
  }

  private static final class Event implements Comparable<Event> {
    static final int WAKE = 0;
    static final int ACK = 1;
    static final int PTO = 2;
    final long timeNs;
    final long seq;
    final int kind;
    final Flow flow;
    final long pn;

    Event(long timeNs, long seq, int kind, Flow flow, long pn) {
      this.timeNs = timeNs;
      this.seq = seq;
      this.kind = kind;
      this.flow = flow;
      this.pn = pn;
    }

    @Override
    public int compareTo(Event o) {
      return timeNs != o.timeNs ? Long.compare(timeNs, o.timeNs) : Long.compare(seq, o.seq);
    }
  }

  /** One sender and its receiver. */
  final class Flow {
    final int id;
    final CongestionController cc;
    final Pacer pacer;
    final TestRtt rtt = new TestRtt();
    private final long bytesToSend;
    private long bytesQueued;
    long nextPn;
    long bytesInFlight;
    private long largestAcked = -1;
    private long lowUnresolved;
    private long[] sentNs = new long[1 << 12];
    private byte[] state = new byte[1 << 12];
    boolean wakeScheduled;
    private long lastAckNs;
    private int ptoCount;
    // Results.
    long deliveredBytes;
    long lostPackets;
    long sentPackets;
    long firstSendNs = -1;
    /** Delivered bytes per 100 ms bin, by arrival time. */
    long[] deliveredPerBin = new long[64];
    /** Send log: time, bytes, pacer rate and burst at that moment. */
    long[] logTimeNs = new long[1 << 12];
    long[] logBurstBytes = new long[1 << 12];
    long[] logRate = new long[1 << 12];
    int logCount;
    boolean logSends = true;

    Flow(int id, CongestionController cc, long bytesToSend) {
      this.id = id;
      this.cc = cc;
      this.bytesToSend = bytesToSend;
      this.pacer = new Pacer(MSS, cc.pacingRateBytesPerSecond(rtt));
    }

    void trySend() {
      while (bytesQueued < bytesToSend && cc.canSend(bytesInFlight, MSS)) {
        long at = pacer.nextSendTimeNs(nowNs, MSS);
        if (at > nowNs) {
          if (!wakeScheduled) {
            wakeScheduled = true;
            // Timers fire on the next millisecond boundary at best.
            long wake = ((at + timerGranularityNs - 1) / timerGranularityNs) * timerGranularityNs;
            schedule(wake, Event.WAKE, this, -1);
          }
          return;
        }
        send();
      }
      if (bytesQueued >= bytesToSend) {
        cc.onApplicationLimited(nowNs, bytesInFlight);
      }
    }

    private void send() {
      long pn = nextPn++;
      ensure(pn);
      int i = (int) pn;
      sentNs[i] = nowNs;
      state[i] = 1;
      bytesInFlight += MSS;
      bytesQueued += MSS;
      sentPackets++;
      if (firstSendNs < 0) {
        firstSendNs = nowNs;
      }
      cc.onPacketSent(nowNs, pn, MSS, bytesInFlight);
      pacer.onPacketSent(nowNs, MSS);
      if (logSends) {
        if (logCount == logTimeNs.length) {
          logTimeNs = Arrays.copyOf(logTimeNs, logCount * 2);
          logBurstBytes = Arrays.copyOf(logBurstBytes, logCount * 2);
          logRate = Arrays.copyOf(logRate, logCount * 2);
        }
        logTimeNs[logCount] = nowNs;
        logBurstBytes[logCount] = pacer.burstBytes();
        logRate[logCount++] = pacer.rateBytesPerSecond();
      }
      long arrive = transmit(MSS);
      if (arrive >= 0) {
        int bin = (int) (arrive / 100_000_000L);
        if (bin >= deliveredPerBin.length) {
          deliveredPerBin = Arrays.copyOf(deliveredPerBin, Math.max(bin + 1, deliveredPerBin.length * 2));
        }
        deliveredPerBin[bin] += MSS;
        schedule(arrive + oneWayNs, Event.ACK, this, pn);
      }
      schedule(nowNs + ptoNs(), Event.PTO, this, pn);
    }

    private long ptoNs() {
      return rtt.smoothedRttNs() + Math.max(4 * rtt.rttVarNs(), 1_000_000L) << Math.min(ptoCount, 6);
    }

    private void ensure(long pn) {
      if (pn >= sentNs.length) {
        sentNs = Arrays.copyOf(sentNs, sentNs.length * 2);
        state = Arrays.copyOf(state, state.length * 2);
      }
    }

    void onAck(long pn) {
      int i = (int) pn;
      if (state[i] != 1) {
        return; // already declared lost: a spurious loss; its data was resent
      }
      state[i] = 2;
      deliveredBytes += MSS;
      bytesInFlight -= MSS;
      lastAckNs = nowNs;
      ptoCount = 0;
      if (pn > largestAcked) {
        largestAcked = pn;
        rtt.sample(nowNs - sentNs[i]);
      }
      cc.onPacketAcked(nowNs, pn, MSS, sentNs[i], rtt, bytesInFlight);
      detectLosses();
      cc.onAckProcessed(nowNs, bytesInFlight);
      pacer.update(cc, rtt);
    }

    private void detectLosses() {
      // RFC 9002 §6.1.2: time threshold 9/8 of max(smoothed, latest) RTT.
      long lossDelay = Math.max(rtt.smoothedRttNs(), rtt.latestRttNs()) * 9 / 8;
      while (lowUnresolved < nextPn && state[(int) lowUnresolved] != 1) {
        lowUnresolved++;
      }
      for (long pn = lowUnresolved; pn < largestAcked; pn++) {
        int i = (int) pn;
        if (state[i] != 1) {
          continue;
        }
        // RFC 9002 §6.1.1: packet threshold 3.
        if (largestAcked - pn >= 3 || sentNs[i] <= nowNs - lossDelay) {
          declareLost(pn);
        } else {
          break;
        }
      }
    }

    private void declareLost(long pn) {
      int i = (int) pn;
      state[i] = 3;
      bytesInFlight -= MSS;
      bytesQueued -= MSS; // the data goes back to be resent
      lostPackets++;
      cc.onPacketLost(nowNs, pn, MSS, sentNs[i], bytesInFlight);
    }

    void onPtoCheck(long pn) {
      if (state[(int) pn] != 1) {
        return;
      }
      if (nowNs - lastAckNs < ptoNs()) {
        // Not expired yet: the timer runs from the last acknowledgement; check again then.
        schedule(lastAckNs + ptoNs(), Event.PTO, this, pn);
        return;
      }
      // RFC 9002 §6.2: nothing acknowledged for a PTO; here the tail is simply declared lost.
      ptoCount++;
      for (long p = lowUnresolved; p < nextPn; p++) {
        if (state[(int) p] == 1 && sentNs[(int) p] <= nowNs - rtt.smoothedRttNs()) {
          declareLost(p);
        }
      }
      if (ptoCount >= 3) {
        cc.onPersistentCongestion(nowNs);
      }
      lastAckNs = nowNs; // the next probe timeout runs from this one (with backoff)
      cc.onAckProcessed(nowNs, bytesInFlight);
      pacer.update(cc, rtt);
    }

    /** Goodput in bits per second over [fromNs, toNs) by arrival time, in 100 ms bins. */
    double goodputBitsPerSecond(long fromNs, long toNs) {
      long bytes = 0;
      for (int b = (int) (fromNs / 100_000_000L); b < toNs / 100_000_000L && b < deliveredPerBin.length; b++) {
        bytes += deliveredPerBin[b];
      }
      return bytes * 8e9 / (toNs - fromNs);
    }

    /** The first time a 1 s window's goodput reached {@code bitsPerSecond}, ns; -1 if never. */
    long timeToReachNs(double bitsPerSecond) {
      for (int b = 0; b + 10 <= deliveredPerBin.length; b++) {
        long bytes = 0;
        for (int k = b; k < b + 10; k++) {
          bytes += deliveredPerBin[k];
        }
        if (bytes * 8.0 >= bitsPerSecond) {
          return (b + 10) * 100_000_000L;
        }
      }
      return -1;
    }

    /**
     * The largest excess of bytes sent over any interval (up to 5 ms) beyond what a bucket of the
     * logged depth refilled at the logged rate allows: at most 0 means the bound held everywhere.
     */
    long worstPacingExcessBytes() {
      long worst = Long.MIN_VALUE;
      for (int start = 0; start < logCount; start++) {
        long bytes = 0;
        long rate = 0;
        long burst = 0;
        for (int end = start; end < logCount; end++) {
          long dt = logTimeNs[end] - logTimeNs[start];
          if (dt > 5 * timerGranularityNs) {
            break;
          }
          bytes += MSS;
          rate = Math.max(rate, logRate[end]);
          burst = Math.max(burst, logBurstBytes[end]);
          long allowed = burst + (rate * dt + 999_999_999L) / 1_000_000_000L;
          worst = Math.max(worst, bytes - allowed);
        }
      }
      return worst;
    }

    /** The most bytes sent at one instant (back to back), and the burst allowed then. */
    long worstBackToBackExcessBytes() {
      long worst = Long.MIN_VALUE;
      int i = 0;
      while (i < logCount) {
        int j = i;
        long burst = 0;
        while (j < logCount && logTimeNs[j] == logTimeNs[i]) {
          burst = Math.max(burst, logBurstBytes[j]);
          j++;
        }
        worst = Math.max(worst, (long) (j - i) * MSS - burst);
        i = j;
      }
      return worst;
    }
  }
}
