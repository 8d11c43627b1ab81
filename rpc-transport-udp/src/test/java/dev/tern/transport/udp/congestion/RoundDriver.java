package dev.tern.transport.udp.congestion;

/**
 * Feeds a controller whole rounds of synthetic traffic in virtual time: send a window's worth,
 * acknowledge it one RTT later, optionally losing chosen packets.
 */
final class RoundDriver {
  static final int MSS = 1350;
  final CongestionController cc;
  final TestRtt rtt = new TestRtt();
  long nowNs;
  long nextPn;
  long inFlight;

  RoundDriver(CongestionController cc) {
    this.cc = cc;
  }

  /** One round: send {@code packets} (or the window if -1), ack all after {@code rttNs}. */
  void round(int packets, long rttNs) {
    roundLosing(packets, rttNs, -1);
  }

  /** One round in which the {@code lostIndex}-th packet (0-based) is lost; -1 for none. */
  void roundLosing(int packets, long rttNs, int lostIndex) {
    int n = packets >= 0 ? packets : (int) Math.max(1, cc.congestionWindowBytes() / MSS);
    long firstPn = nextPn;
    long sendStart = nowNs;
    for (int i = 0; i < n; i++) {
      inFlight += MSS;
      cc.onPacketSent(nowNs, nextPn++, MSS, inFlight);
    }
    nowNs = sendStart + rttNs;
    rtt.sample(rttNs);
    for (int i = 0; i < n; i++) {
      inFlight -= MSS;
      if (i == lostIndex) {
        continue;
      }
      cc.onPacketAcked(nowNs, firstPn + i, MSS, sendStart, rtt, inFlight);
      if (i == lostIndex + 3 && lostIndex >= 0) {
        cc.onPacketLost(nowNs, firstPn + lostIndex, MSS, sendStart, inFlight);
      }
      cc.onAckProcessed(nowNs, inFlight);
    }
    if (lostIndex >= 0 && lostIndex + 3 >= n) {
      cc.onPacketLost(nowNs, firstPn + lostIndex, MSS, sendStart, inFlight);
      cc.onAckProcessed(nowNs, inFlight);
    }
  }
}
