package dev.tern.transport.udp.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.congestion.NewReno;
import dev.tern.transport.udp.frame.AckFrame;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * Persistent congestion as RFC 9002 §7.6.2 defines it, and what a late acknowledgement of a
 * packet declared lost undoes (RFC 9438 §4.9: the spurious congestion response) and adapts
 * (RFC 9002 §6.1, RFC 8985 §6.2: the reordering thresholds).
 */
class SpuriousLossAndPersistentCongestionTest {
  private static final long MS = 1_000_000L;

  private final SentPacketLog log = new SentPacketLog();
  private final RttEstimator rtt = new RttEstimator();
  private final NewReno cc = new NewReno(1350);
  private final LossDetector detector = new LossDetector(log, rtt, cc, new SentFrameSink() {
    @Override
    public void onFrameAcked(byte type, long a, long b, int length) {}

    @Override
    public void onFrameLost(byte type, long a, long b, int length) {}
  });

  private void send(long nowNs) {
    log.beginPacket();
    log.addFrame(SentFrameType.STREAM, 0, log.nextPacketNumber() * 1000, 1000);
    detector.onPacketSent(nowNs, 1200, true, true);
  }

  /** An ACK-only packet: neither ack-eliciting nor in flight (RFC 9002 §2). */
  private void sendAckOnly(long nowNs) {
    log.beginPacket();
    log.addFrame(SentFrameType.ACK, 0, 0, 0);
    detector.onPacketSent(nowNs, 60, false, false);
  }

  private static AckFrame ack(long... rangePairs) {
    long[] hi = new long[rangePairs.length / 2];
    long[] lo = new long[rangePairs.length / 2];
    for (int i = 0; i < hi.length; i++) {
      hi[i] = rangePairs[2 * i];
      lo[i] = rangePairs[2 * i + 1];
    }
    ByteBuffer b = ByteBuffer.allocate(200);
    AckFrame.encode(b, hi, lo, hi.length, 0, null, null, 0, 200);
    b.flip();
    AckFrame f = new AckFrame();
    f.decode(b, b.get());
    return f;
  }

  @Test
  void ackOnlyPacketsBetweenLostOnesDoNotBreakThePeriod() {
    send(0);
    detector.onAck(ack(0, 0), 100 * MS); // the first RTT sample: PTO about 300 ms
    send(1_000 * MS); // 1: lost
    sendAckOnly(1_001 * MS); // 2: not acknowledged, not ack-eliciting
    send(10_000 * MS); // 3: lost, 9 s after 1
    sendAckOnly(10_001 * MS); // 4
    send(20_000 * MS); // 5: acknowledged
    detector.onAck(ack(5, 5), 20_100 * MS);
    assertThat(detector.packetsLost()).isEqualTo(2);
    assertThat(detector.persistentCongestionEvents()).isEqualTo(1);
    assertThat(cc.congestionWindowBytes()).isEqualTo(2 * 1350);
  }

  @Test
  void anAcknowledgedPacketSentBetweenBreaksThePeriod() {
    send(0);
    detector.onAck(ack(0, 0), 100 * MS);
    send(1_000 * MS); // 1: lost
    send(2_000 * MS); // 2: acknowledged
    send(10_000 * MS); // 3: lost
    send(20_000 * MS); // 4: acknowledged
    detector.onAck(ack(2, 2), 2_100 * MS);
    detector.onAck(ack(4, 4), 20_100 * MS);
    assertThat(detector.packetsLost()).isEqualTo(2);
    assertThat(detector.persistentCongestionEvents()).isZero();
  }

  @Test
  void packetsSentBeforeTheFirstRttSampleDoNotCount() {
    send(0); // 0
    send(5_000 * MS); // 1
    send(10_000 * MS); // 2: its ACK gives the first sample
    detector.onAck(ack(2, 2), 10_100 * MS);
    assertThat(detector.packetsLost()).isEqualTo(2); // 0 and 1, 5 s apart
    assertThat(detector.persistentCongestionEvents()).isZero();
    assertThat(cc.congestionWindowBytes()).isGreaterThan(2 * 1350);
  }

  @Test
  void aLateAckOfEveryPacketLostInTheEventUndoesTheReduction() {
    for (int i = 0; i < 5; i++) {
      send(i * MS);
    }
    detector.onAck(ack(0, 0), 100 * MS);
    long before = cc.congestionWindowBytes();
    detector.onAck(ack(4, 2, 0, 0), 101 * MS); // 1 is three behind 4: declared lost
    assertThat(detector.packetsLost()).isEqualTo(1);
    assertThat(cc.congestionWindowBytes()).isLessThan(before);
    detector.onAck(ack(4, 0), 102 * MS); // 1 arrived after all: reordered, not lost
    assertThat(detector.spuriousLosses()).isEqualTo(1);
    assertThat(cc.congestionWindowBytes()).isEqualTo(before);
    assertThat(cc.inSlowStart()).isTrue();
  }

  @Test
  void aLossEventNotEntirelyAcknowledgedLaterIsKept() {
    for (int i = 0; i < 6; i++) {
      send(i * MS);
    }
    detector.onAck(ack(0, 0), 100 * MS);
    long before = cc.congestionWindowBytes();
    detector.onAck(ack(5, 3, 0, 0), 101 * MS); // 1 and 2 lost
    assertThat(detector.packetsLost()).isEqualTo(2);
    long reduced = cc.congestionWindowBytes();
    assertThat(reduced).isLessThan(before);
    detector.onAck(ack(5, 3, 1, 0), 102 * MS); // 1 late; 2 really lost
    assertThat(cc.congestionWindowBytes()).isEqualTo(reduced);
  }

  @Test
  void aSpuriousLossRaisesThePacketThresholdToTheReorderingSeen() {
    for (int i = 0; i < 6; i++) {
      send(i * MS);
    }
    detector.onAck(ack(0, 0), 100 * MS);
    detector.onAck(ack(5, 2, 0, 0), 101 * MS); // 1 declared lost with 5 acknowledged
    detector.onAck(ack(5, 0), 102 * MS); // and arrives: reordered by 5 - 1 = 4 packets
    assertThat(detector.packetThreshold()).isEqualTo(5);
    assertThat(detector.timeThresholdEighths()).isGreaterThan(9);
    // Four packets of reordering no longer declare a loss.
    long t = 200 * MS;
    for (int i = 0; i < 6; i++) {
      send(t); // 6..11
    }
    detector.onAck(ack(11, 7), t + 100 * MS); // 6 is four behind 10 and five behind 11
    assertThat(detector.packetsLost()).isEqualTo(2); // 6 is lost (5 behind): 1 before, 6 now
    send(t + 1 * MS); // 12
    send(t + 1 * MS); // 13
    send(t + 1 * MS); // 14
    send(t + 1 * MS); // 15
    detector.onAck(ack(15, 13), t + 101 * MS); // 12 is three behind 15: not lost any more
    assertThat(detector.packetsLost()).isEqualTo(2);
  }

  @Test
  void undoingAnEventTheControllerNeverReactedToRestoresNothing() {
    // As PathMtuController does for a PMTU probe: a loss the controller never sees.
    NewReno reno = new NewReno(1350);
    dev.tern.transport.udp.congestion.CongestionController filtering =
        new dev.tern.transport.udp.congestion.CongestionController() {
          @Override
          public void onPacketSent(long nowNs, long pn, int bytes, long inFlight) {
            reno.onPacketSent(nowNs, pn, bytes, inFlight);
          }

          @Override
          public void onPacketAcked(long nowNs, long pn, int bytes, long sentNs, RttView rtt,
              long inFlight) {
            reno.onPacketAcked(nowNs, pn, bytes, sentNs, rtt, inFlight);
          }

          @Override
          public void onPacketLost(long nowNs, long pn, int bytes, long sentNs, long inFlight) {
            if (bytes <= 1300) {
              reno.onPacketLost(nowNs, pn, bytes, sentNs, inFlight);
            }
          }

          @Override
          public void onSpuriousCongestion(long nowNs, long eventStartNs) {
            reno.onSpuriousCongestion(nowNs, eventStartNs);
          }

          @Override
          public void onPersistentCongestion(long nowNs) {
            reno.onPersistentCongestion(nowNs);
          }

          @Override
          public long congestionWindowBytes() {
            return reno.congestionWindowBytes();
          }

          @Override
          public long pacingRateBytesPerSecond(RttView rtt) {
            return reno.pacingRateBytesPerSecond(rtt);
          }

          @Override
          public boolean inSlowStart() {
            return reno.inSlowStart();
          }

          @Override
          public String name() {
            return "filtering";
          }
        };
    SentPacketLog plog = new SentPacketLog();
    LossDetector d = new LossDetector(plog, new RttEstimator(), filtering, new SentFrameSink() {
      @Override
      public void onFrameAcked(byte type, long a, long b, int length) {}

      @Override
      public void onFrameLost(byte type, long a, long b, int length) {}
    });
    for (int i = 0; i < 5; i++) {
      plog.beginPacket();
      d.onPacketSent(i * MS, 1200, true, true);
    }
    d.onAck(ack(0, 0), 100 * MS);
    d.onAck(ack(4, 2), 101 * MS); // 1 lost for real: the window is halved
    long reduced = reno.congestionWindowBytes();
    for (int i = 0; i < 4; i++) { // 5 is a 1,400-byte probe the controller does not count
      plog.beginPacket();
      d.onPacketSent(200 * MS, i == 0 ? 1400 : 1200, true, true);
    }
    d.onAck(ack(8, 6), 300 * MS); // 5 declared lost: a loss event of its own
    d.onAck(ack(8, 5), 301 * MS); // and acknowledged late: that event was spurious
    assertThat(d.spuriousEvents()).isEqualTo(1);
    assertThat(reno.congestionWindowBytes()).isEqualTo(reduced); // 1's reduction stands
  }
}
