package dev.tern.transport.udp.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.transport.udp.recovery.SentFrameSink;
import dev.tern.transport.udp.recovery.SentFrameType;
import dev.tern.transport.udp.recovery.SentPacketLog;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PrioritySchedulerTest {
  private static final int PACKET = 1350;

  private static Stream stream(long id, int urgency, boolean incremental) {
    Stream s = new Stream(id, 1 << 16, 1 << 20, 1 << 16);
    s.setPriority(urgency, incremental);
    return s;
  }

  @Test
  void mostUrgentReadyStreamGoesFirst() {
    PriorityScheduler sched = new PriorityScheduler();
    Stream bulk = stream(0, 6, false);
    Stream urgent = stream(4, 0, false);
    sched.markReady(bulk);
    assertThat(sched.next()).isSameAs(bulk);
    sched.markReady(urgent);
    assertThat(sched.next()).isSameAs(urgent);
    sched.onEmitted(urgent, false);
    assertThat(sched.next()).isSameAs(bulk);
    sched.onEmitted(bulk, false);
    assertThat(sched.isEmpty()).isTrue();
    assertThat(sched.next()).isNull();
  }

  @Test
  void incrementalStreamsOfOneUrgencyTakeTurns() {
    PriorityScheduler sched = new PriorityScheduler();
    Stream a = stream(0, 3, true);
    Stream b = stream(4, 3, true);
    Stream c = stream(8, 3, true);
    sched.markReady(a);
    sched.markReady(b);
    sched.markReady(c);
    List<Stream> order = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      Stream s = sched.next();
      order.add(s);
      sched.onEmitted(s, true);
    }
    assertThat(order).containsExactly(a, b, c, a, b, c);
  }

  @Test
  void nonIncrementalStreamsOfOneUrgencyGoOneAfterAnother() {
    PriorityScheduler sched = new PriorityScheduler();
    Stream a = stream(0, 3, false);
    Stream b = stream(4, 3, false);
    sched.markReady(a);
    sched.markReady(b);
    for (int i = 0; i < 3; i++) {
      assertThat(sched.next()).isSameAs(a);
      sched.onEmitted(a, true);
    }
    sched.onEmitted(a, false);
    assertThat(sched.next()).isSameAs(b);
  }

  @Test
  void aPriorityRaisedWhileQueuedTakesEffectAtOnce() {
    PriorityScheduler sched = new PriorityScheduler();
    Stream a = stream(0, 3, false);
    Stream b = stream(4, 5, false);
    sched.markReady(a);
    sched.markReady(b);
    b.setPriority(1, false);
    assertThat(sched.next()).isSameAs(b);
    sched.remove(b);
    assertThat(sched.next()).isSameAs(a);
  }

  @Test
  void bulkStreamsLeaveAConnectionCreditReserveForUrgentOnes() {
    PriorityScheduler sched = new PriorityScheduler(2, 16_384);
    assertThat(sched.creditFor(stream(0, 0, false), 20_000)).isEqualTo(20_000);
    assertThat(sched.creditFor(stream(4, 3, false), 20_000)).isEqualTo(3_616);
    assertThat(sched.creditFor(stream(8, 7, true), 10_000)).isZero();
    assertThatThrownBy(() -> new PriorityScheduler(9, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("9");
  }

  /** Six bulk streams and the connection window they nearly exhaust, through the frame writer. */
  private static final class Feed {
    final PriorityScheduler sched = new PriorityScheduler();
    final StreamSet set = new StreamSet(true, StreamLimits.defaults(), sched, new StreamListener() {});
    final StreamFrameWriter writer = new StreamFrameWriter(set);
    final SentPacketLog log = new SentPacketLog();
    final ByteBuffer out = ByteBuffer.allocate(PACKET);
    final List<Stream> bulk = new ArrayList<>();

    Feed(long connectionWindow) {
      set.setPeerLimits(connectionWindow, 256 << 10, 100);
      for (int i = 0; i < 6; i++) {
        Stream s = set.open();
        s.setPriority(5, false);
        set.write(s, ByteBuffer.allocate(100 << 10));
        set.finish(s);
        bulk.add(s);
      }
    }

    /** Writes one packet; returns the stream IDs of its STREAM frames. */
    List<Long> packet() {
      out.clear();
      long pn = log.beginPacket();
      writer.writeStreamFrames(out, PACKET, log);
      log.endPacket(0, out.position(), true, true);
      List<Long> ids = new ArrayList<>();
      log.repeat(pn, new SentFrameSink() {
        @Override
        public void onFrameAcked(byte type, long a, long b, int length) {}

        @Override
        public void onFrameLost(byte type, long a, long b, int length) {
          if (type == SentFrameType.STREAM || type == SentFrameType.STREAM_FIN) {
            ids.add(a);
          }
        }
      });
      return ids;
    }
  }

  @Test
  void anUrgentCallOvertakesQueuedBulkDataAtTheNextPacket() {
    Feed feed = new Feed(1 << 20);
    for (int i = 0; i < 20; i++) {
      assertThat(feed.packet()).containsOnly(feed.bulk.get(0).id());
    }
    Stream urgent = feed.set.open();
    urgent.setPriority(0, false);
    feed.set.write(urgent, ByteBuffer.allocate(2048));
    feed.set.finish(urgent);
    assertThat(feed.packet()).containsOnly(urgent.id());
    assertThat(feed.packet()).startsWith(urgent.id());
  }

  @Test
  void bulkDataCannotSpendTheCreditAnUrgentCallNeeds() {
    // A connection window smaller than the bulk data: without the reserve, bulk would take it all.
    Feed feed = new Feed(300_000);
    int packets = 0;
    while (!feed.packet().isEmpty()) {
      packets++;
    }
    assertThat(packets).isGreaterThan(200);
    assertThat(feed.set.connectionCredit()).isEqualTo(PriorityScheduler.DEFAULT_URGENT_CREDIT_RESERVE_BYTES);
    Stream urgent = feed.set.open();
    urgent.setPriority(0, false);
    feed.set.write(urgent, ByteBuffer.allocate(2048));
    feed.set.finish(urgent);
    assertThat(feed.packet()).containsOnly(urgent.id());
    assertThat(feed.packet()).containsOnly(urgent.id());
  }

  @Test
  void aCancelledStreamSendsNothingMoreNotEvenRetransmissions() {
    Feed feed = new Feed(1 << 20);
    Stream victim = feed.bulk.get(0);
    long firstPn = feed.log.nextPacketNumber();
    for (int i = 0; i < 10; i++) {
      feed.packet();
    }
    feed.set.reset(victim, 7);
    // Its earlier packets are now declared lost: nothing of the stream may be queued again.
    for (long pn = firstPn; pn < firstPn + 10; pn++) {
      feed.log.close(pn, false, new SentFrameSink() {
        @Override
        public void onFrameAcked(byte type, long a, long b, int length) {}

        @Override
        public void onFrameLost(byte type, long a, long b, int length) {
          feed.writer.onLost(type, a, b, length);
        }
      });
    }
    for (int i = 0; i < 100; i++) {
      assertThat(feed.packet()).doesNotContain(victim.id()).isNotEmpty();
    }
  }

  @Test
  void retransmissionsKeepTheirStreamsUrgency() {
    Feed feed = new Feed(1 << 20);
    Stream urgent = feed.set.open();
    urgent.setPriority(1, false);
    feed.set.write(urgent, ByteBuffer.allocate(1000));
    feed.set.finish(urgent);
    long urgentPn = feed.log.nextPacketNumber();
    assertThat(feed.packet()).startsWith(urgent.id());
    for (int i = 0; i < 5; i++) {
      assertThat(feed.packet()).containsOnly(feed.bulk.get(0).id());
    }
    // The urgent call's packet is lost: its data goes out again ahead of the queued bulk data.
    feed.log.close(urgentPn, false, new SentFrameSink() {
      @Override
      public void onFrameAcked(byte type, long a, long b, int length) {}

      @Override
      public void onFrameLost(byte type, long a, long b, int length) {
        feed.writer.onLost(type, a, b, length);
      }
    });
    assertThat(feed.packet()).startsWith(urgent.id());
  }
}
