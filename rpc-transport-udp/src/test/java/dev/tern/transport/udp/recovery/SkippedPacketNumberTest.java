package dev.tern.transport.udp.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.congestion.NewReno;
import dev.tern.transport.udp.frame.AckFrame;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * RFC 9000 §21.4: the sender skips packet numbers now and then, and an ACK that claims a skipped
 * one (an optimistic acknowledger's) is refused, while a peer's ACK that leaves the gap is not.
 */
class SkippedPacketNumberTest {
  private static final long MS = 1_000_000L;

  private final SentPacketLog log = new SentPacketLog();
  private final LossDetector detector = new LossDetector(log, new RttEstimator(),
      new NewReno(1350), new SentFrameSink() {
        @Override
        public void onFrameAcked(byte type, long a, long b, int length) {}

        @Override
        public void onFrameLost(byte type, long a, long b, int length) {}
      });

  /** Sends {@code n} packets; returns the packet numbers they got. */
  private List<Long> send(int n) {
    List<Long> pns = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      long pn = log.beginPacket();
      log.addFrame(SentFrameType.STREAM, 4, pn * 1000, 1000);
      detector.onPacketSent(pn * MS, 1200, true, true);
      pns.add(pn);
    }
    return pns;
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

  private static long firstGap(List<Long> pns) {
    for (int i = 1; i < pns.size(); i++) {
      if (pns.get(i) != pns.get(i - 1) + 1) {
        return pns.get(i - 1) + 1;
      }
    }
    return -1;
  }

  @Test
  void withoutSkippingEveryNumberIsUsed() {
    List<Long> pns = send(400);
    assertThat(firstGap(pns)).isEqualTo(-1);
    assertThat(detector.skippedPacketNumbers()).isZero();
  }

  @Test
  void aSkippedNumberIsNeverSentAndAnAckClaimingItIsRefused() {
    detector.skipPacketNumbers(0x1234_5678_9abcL);
    List<Long> pns = send(400);
    long skipped = firstGap(pns);
    // The first skip falls within FIRST_SKIP_MIN + SKIP_SPAN numbers; later ones follow.
    assertThat(skipped).isBetween((long) LossDetector.FIRST_SKIP_MIN,
        (long) LossDetector.FIRST_SKIP_MIN + LossDetector.SKIP_SPAN);
    assertThat(detector.skippedPacketNumbers()).isGreaterThanOrEqualTo(1);
    assertThat(log.isOpen(skipped)).isFalse();
    long bytesBefore = detector.bytesInFlight();
    // An ACK of everything sent, the skipped number included: a PROTOCOL_VIOLATION, and none of
    // it is processed (the window gains nothing from it).
    assertThat(detector.onAck(ack(skipped + 1, 0), 500 * MS)).isFalse();
    assertThat(detector.bytesInFlight()).isEqualTo(bytesBefore);
  }

  @Test
  void anHonestAckLeavesTheSkippedNumberOutAndIsProcessed() {
    detector.skipPacketNumbers(0x1234_5678_9abcL);
    List<Long> pns = send(400);
    long skipped = firstGap(pns);
    assertThat(detector.onAck(ack(skipped + 3, skipped + 1, skipped - 1, 0), 500 * MS)).isTrue();
    // Nothing was declared lost for the gap: the skipped number was never in flight.
    assertThat(detector.packetsLost()).isZero();
    assertThat(detector.bytesInFlight()).isEqualTo((pns.size() - skipped - 3) * 1200L);
  }

  @Test
  void theSkipPositionsFollowTheSeed() {
    SentPacketLog otherLog = new SentPacketLog();
    LossDetector other = new LossDetector(otherLog, new RttEstimator(), new NewReno(1350),
        new SentFrameSink() {
          @Override
          public void onFrameAcked(byte type, long a, long b, int length) {}

          @Override
          public void onFrameLost(byte type, long a, long b, int length) {}
        });
    detector.skipPacketNumbers(1);
    other.skipPacketNumbers(2);
    List<Long> a = send(2000);
    List<Long> b = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      long pn = otherLog.beginPacket();
      other.onPacketSent(pn * MS, 1200, true, true);
      b.add(pn);
    }
    assertThat(a).isNotEqualTo(b);
    // Every 64-320 numbers after the first: 2000 packets span at least five skips.
    assertThat(detector.skippedPacketNumbers()).isGreaterThanOrEqualTo(5);
  }
}
