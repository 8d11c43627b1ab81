package dev.tern.transport.udp.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.frame.AckFrame;
import dev.tern.transport.udp.frame.FrameType;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class AckTrackerTest {
  private static final long MS = 1_000_000L;

  private static AckFrame decode(ByteBuffer b) {
    b.flip();
    AckFrame f = new AckFrame();
    int type = b.get();
    assertThat(f.decode(b, type)).isTrue();
    return f;
  }

  @Test
  void acknowledgesEverySecondAckElicitingPacketAndOutOfOrderAtOnce() {
    AckTracker t = new AckTracker(25 * MS);
    t.onPacketReceived(0, true, 0);
    assertThat(t.ackDue(0)).isFalse();
    assertThat(t.ackDeadlineNs()).isEqualTo(25 * MS);
    assertThat(t.ackDue(25 * MS)).isTrue(); // max_ack_delay
    t.onPacketReceived(1, true, MS);
    assertThat(t.ackDue(MS)).isTrue(); // second ack-eliciting packet
    t.writeAck(ByteBuffer.allocate(100), MS, 100, false);
    assertThat(t.ackDue(MS)).isFalse();
    t.onPacketReceived(3, true, 2 * MS); // gap: 2 missing
    assertThat(t.ackDue(2 * MS)).isTrue();
  }

  @Test
  void ackImmediatelyMakesAPendingAckDueAtOnceAndNothingWithoutOne() {
    AckTracker t = new AckTracker(25 * MS);
    t.ackImmediately(); // nothing received: no ACK is due
    assertThat(t.ackDeadlineNs()).isEqualTo(Long.MAX_VALUE);
    t.onPacketReceived(0, true, 0);
    assertThat(t.ackDue(0)).isFalse();
    t.ackImmediately(); // an Initial packet (RFC 9000 §13.2.1)
    assertThat(t.ackDue(0)).isTrue();
    assertThat(t.ackDeadlineNs()).isZero();
  }

  @Test
  void rangesMatchAReferenceSetUnderRandomArrivalAndDetectDuplicates() {
    Random r = new Random(5);
    AckTracker t = new AckTracker(25 * MS);
    TreeSet<Long> seen = new TreeSet<>();
    for (int i = 0; i < 2000; i++) {
      long pn = r.nextInt(400);
      assertThat(t.isDuplicate(pn)).isEqualTo(seen.contains(pn));
      if (!seen.contains(pn)) {
        t.onPacketReceived(pn, true, i);
        seen.add(pn);
      }
    }
    ByteBuffer b = ByteBuffer.allocate(4000);
    t.writeAck(b, 3000, 4000, false);
    AckFrame f = decode(b);
    TreeSet<Long> acked = new TreeSet<>();
    for (int k = 0; k < f.rangeCount; k++) {
      for (long pn = f.smallest[k]; pn <= f.largest[k]; pn++) {
        acked.add(pn);
      }
    }
    assertThat(acked).isEqualTo(seen);
  }

  @Test
  void keepsAtMost257RangesAndForgetsTheOldest() {
    AckTracker t = new AckTracker(25 * MS);
    for (int i = 0; i < 600; i++) {
      t.onPacketReceived(2L * i, true, i); // every other packet: one range each
    }
    assertThat(t.rangeCount()).isEqualTo(AckFrame.MAX_RANGES);
    assertThat(t.isDuplicate(0)).isTrue(); // forgotten, so treated as already seen
    assertThat(t.isDuplicate(1199)).isFalse();
    ByteBuffer b = ByteBuffer.allocate(4000);
    t.writeAck(b, 1000, 4000, false);
    assertThat(decode(b).rangeCount).isEqualTo(AckFrame.MAX_RANGES);
  }

  @Test
  void writesReceiveTimestampsInDecreasingPacketOrder() {
    AckTracker t = new AckTracker(25 * MS);
    t.onPacketReceived(0, true, 1000 * MS);
    t.onPacketReceived(2, true, 1010 * MS);
    t.onPacketReceived(1, true, 1020 * MS);
    ByteBuffer b = ByteBuffer.allocate(200);
    t.writeAck(b, 1030 * MS, 200, true);
    assertThat(b.get(0)).isEqualTo((byte) FrameType.ACK_RECEIVE_TIMESTAMPS);
    AckFrame f = decode(b);
    assertThat(f.timestampCount).isGreaterThanOrEqualTo(1);
    assertThat(f.timestampPn[0]).isEqualTo(2);
    assertThat(f.timestampUs[0]).isEqualTo(10_000);
  }
}
