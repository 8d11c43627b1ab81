package dev.tern.transport.udp.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.congestion.NewReno;
import dev.tern.transport.udp.frame.AckFrame;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LossDetectorTest {
  private static final long MS = 1_000_000L;

  private final SentPacketLog log = new SentPacketLog();
  private final RttEstimator rtt = new RttEstimator();
  private final NewReno cc = new NewReno(1350);
  private final List<String> lost = new ArrayList<>();
  private final List<String> acked = new ArrayList<>();
  private final SentFrameSink sink = new SentFrameSink() {
    @Override
    public void onFrameAcked(byte type, long a, long b, int length) {
      acked.add(a + "@" + b);
    }

    @Override
    public void onFrameLost(byte type, long a, long b, int length) {
      lost.add(a + "@" + b);
    }
  };
  private final LossDetector detector = new LossDetector(log, rtt, cc, sink);

  private void send(long nowNs, long streamId, long offset) {
    log.beginPacket();
    log.addFrame(SentFrameType.STREAM, streamId, offset, 1000);
    detector.onPacketSent(nowNs, 1200, true, true);
  }

  private AckFrame ack(long... rangePairs) {
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
  void retransmitsOnlyWhatTheAckShowsMissingByPacketThreshold() {
    for (int i = 0; i < 6; i++) {
      send(i * MS, 4, i * 1000L);
    }
    // Packets 0, 2..5 acknowledged; 1 missing with three later ones acknowledged: lost.
    assertThat(detector.onAck(ack(5, 2, 0, 0), 100 * MS)).isTrue();
    assertThat(lost).containsExactly("4@1000");
    assertThat(acked).containsExactlyInAnyOrder("4@0", "4@2000", "4@3000", "4@4000", "4@5000");
    assertThat(detector.bytesInFlight()).isZero();
    assertThat(detector.packetsLost()).isEqualTo(1);
  }

  @Test
  void declaresLossByTimeThresholdViaTheLossTimer() {
    send(0, 4, 0);
    send(MS, 4, 1000);
    // Only packet 1 acknowledged: packet 0 is not 3 behind, so the time threshold decides.
    assertThat(detector.onAck(ack(1, 1), 100 * MS)).isTrue();
    assertThat(lost).isEmpty();
    long timer = detector.timerNs();
    // RFC 9002 §6.1.2: 9/8 of max(srtt, latest) after the packet was sent.
    assertThat(timer).isEqualTo(0 + rtt.lossDelayNs());
    assertThat(detector.onTimeout(timer)).isZero();
    assertThat(lost).containsExactly("4@0");
  }

  @Test
  void probeTimeoutAsksForTwoProbesAndBacksOff() {
    send(0, 4, 0);
    long pto1 = detector.timerNs();
    assertThat(pto1).isEqualTo(rtt.ptoNs(0));
    assertThat(detector.onTimeout(pto1)).isEqualTo(LossDetector.PROBES_PER_PTO);
    assertThat(detector.timerNs()).isEqualTo(2 * rtt.ptoNs(0)); // exponential backoff
    assertThat(detector.repeatOldest(2)).isEqualTo(1);
    assertThat(lost).containsExactly("4@0"); // re-queued for the probe, still in flight
    assertThat(detector.bytesInFlight()).isEqualTo(1200);
  }

  @Test
  void theFirstProbeIsATailLossProbeAfterTwoSmoothedRtts() {
    // One jittery sample: SRTT 200 ms, RTTVAR 100 ms, so RFC 9002's PTO is 625 ms with a 25 ms
    // max_ack_delay while RFC 8985 §7.2's TLP is due after 2 SRTT = 400 ms.
    rtt.onSample(200 * MS, 0);
    detector.setPeerMaxAckDelay(25 * MS, true);
    send(0, 4, 0);
    assertThat(detector.timerNs()).isEqualTo(400 * MS + 25 * MS); // one packet: its ACK may wait
    send(0, 4, 1000);
    assertThat(detector.timerNs()).isEqualTo(400 * MS); // two: the peer acknowledges at once
    assertThat(detector.onTimeout(400 * MS)).isEqualTo(LossDetector.PROBES_PER_PTO);
    // Later probes back off from RFC 9002's PTO.
    assertThat(detector.timerNs()).isEqualTo(2 * rtt.ptoNs(25 * MS));
  }

  @Test
  void anUrgentTailIsProbedAfterOneAndAHalfSmoothedRtts() {
    rtt.onSample(200 * MS, 0);
    detector.setPeerMaxAckDelay(25 * MS, true);
    send(0, 8, 0); // bulk data first
    log.beginPacket();
    log.addFrame(SentFrameType.STREAM_FIN, 24, 0, 600);
    detector.onPacketSent(10 * MS, 700, true, true, true); // the end of an urgent request
    assertThat(detector.timerNs()).isEqualTo(10 * MS + 300 * MS);
    // Bulk data sent after it is the tail again: back to 2 SRTT from that packet.
    send(20 * MS, 8, 1000);
    assertThat(detector.timerNs()).isEqualTo(20 * MS + 400 * MS);
  }

  @Test
  void anUrgentSinglePacketStillWaitsForTheDelayedAck() {
    rtt.onSample(200 * MS, 0);
    detector.setPeerMaxAckDelay(25 * MS, true);
    log.beginPacket();
    log.addFrame(SentFrameType.STREAM_FIN, 24, 0, 600);
    detector.onPacketSent(0, 700, true, true, true);
    assertThat(detector.timerNs()).isEqualTo(300 * MS + 25 * MS);
  }

  @Test
  void noTailLossProbeBeforeTheHandshakeIsConfirmed() {
    rtt.onSample(200 * MS, 0);
    detector.setPeerMaxAckDelay(25 * MS, false);
    send(0, 4, 0);
    send(0, 4, 1000);
    assertThat(detector.timerNs()).isEqualTo(rtt.ptoNs(0));
  }

  @Test
  void probeRepeatsTheOldestDataNotAnOlderPacketWithNothingToRepeat() {
    log.beginPacket(); // a PMTU probe: PING and padding, sent before the data
    log.addFrame(SentFrameType.PING, 0, 0, 0);
    detector.onPacketSent(0, 1400, true, true);
    send(MS, 4, 0);
    assertThat(detector.onTimeout(detector.timerNs())).isEqualTo(LossDetector.PROBES_PER_PTO);
    assertThat(detector.repeatOldest(1)).isEqualTo(1);
    assertThat(lost).containsExactly("4@0"); // the data, not a bare PING
  }

  @Test
  void probeRepeatsUrgentDataInFlightBeforeOlderBulkData() {
    send(0, 8, 0); // bulk
    log.beginPacket();
    log.addFrame(SentFrameType.STREAM, 24, 0, 1000);
    detector.onPacketSent(MS, 1200, true, true, true); // urgent
    send(2 * MS, 8, 1000); // bulk
    log.beginPacket();
    log.addFrame(SentFrameType.STREAM_FIN, 24, 1000, 500);
    detector.onPacketSent(3 * MS, 700, true, true, true); // urgent
    send(4 * MS, 8, 2000); // bulk
    assertThat(detector.repeatOldestUrgent(LossDetector.PROBES_PER_PTO)).isEqualTo(2);
    assertThat(lost).containsExactly("24@0", "24@1000");
    // Still in flight: a repeat is not a loss.
    assertThat(detector.bytesInFlight()).isEqualTo(3 * 1200 + 1200 + 700);
    lost.clear();
    detector.onAck(ack(4, 0), 5 * MS);
    assertThat(detector.repeatOldestUrgent(LossDetector.PROBES_PER_PTO)).isZero();
    assertThat(lost).isEmpty();
  }

  @Test
  void withNothingInFlightAClientsProbeTimerRunsFromTheLastAck() {
    detector.setArmWithoutInFlight(true); // a client before handshake confirmation
    send(0, 4, 0);
    detector.onAck(ack(0, 0), 100 * MS);
    assertThat(detector.ackElicitingInFlight()).isZero();
    // RFC 9002 §A.8: now + PTO when the ACK emptied the flight, not last-sent + PTO.
    assertThat(detector.timerNs()).isEqualTo(100 * MS + rtt.ptoNs(0));
  }

  @Test
  void rejectsAnAckOfAPacketNeverSent() {
    send(0, 4, 0);
    assertThat(detector.onAck(ack(7, 0), MS)).isFalse();
  }

  @Test
  void persistentCongestionCollapsesTheWindow() {
    send(0, 4, 0);
    detector.onAck(ack(0, 0), 100 * MS); // an RTT sample
    for (int i = 1; i <= 10; i++) {
      send(i * 1000 * MS, 4, i * 1000L); // spread far beyond 3 PTOs
    }
    send(20_000 * MS, 4, 11_000);
    detector.onAck(ack(11, 11), 20_100 * MS);
    assertThat(detector.persistentCongestionEvents()).isEqualTo(1);
    assertThat(cc.congestionWindowBytes()).isEqualTo(2 * 1350);
  }

  @Test
  void sentPacketLogGrowsWithoutLosingRecords() {
    for (int i = 0; i < 5000; i++) {
      send(i, 4, i * 1000L);
    }
    assertThat(log.openPackets()).isEqualTo(5000);
    detector.onAck(ack(4999, 0), 10 * MS);
    assertThat(acked).hasSize(5000);
    assertThat(log.openPackets()).isZero();
    assertThat(log.firstPacketNumber()).isEqualTo(5000);
  }

  @Test
  void rttFollowsRfc9002() {
    RttEstimator r = new RttEstimator();
    assertThat(r.smoothedRttNs()).isEqualTo(333 * MS);
    r.onSample(100 * MS, 0);
    assertThat(r.smoothedRttNs()).isEqualTo(100 * MS);
    assertThat(r.rttVarNs()).isEqualTo(50 * MS);
    r.onSample(120 * MS, 10 * MS); // adjusted to 110 ms
    assertThat(r.smoothedRttNs()).isEqualTo((7 * 100 * MS + 110 * MS) / 8);
    assertThat(r.minRttNs()).isEqualTo(100 * MS);
  }
}
