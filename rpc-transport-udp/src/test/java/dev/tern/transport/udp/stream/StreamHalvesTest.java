package dev.tern.transport.udp.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.frame.TransportError;
import java.nio.ByteBuffer;
import java.util.BitSet;
import java.util.Random;
import org.junit.jupiter.api.Test;

class StreamHalvesTest {
  private static ByteBuffer bytes(int from, int n) {
    ByteBuffer b = ByteBuffer.allocate(n);
    for (int i = 0; i < n; i++) {
      b.put(i, (byte) (from + i));
    }
    return b;
  }

  @Test
  void reassemblesOutOfOrderAndDeliversInOrderOnly() {
    ReceiveStream r = new ReceiveStream(66_560); // 65 KiB: not a power of two on purpose
    assertThat(r.onData(1000, bytes(1000, 500), 0, 500, false)).isNull();
    assertThat(r.readableBytes()).isZero(); // a gap before it: nothing to deliver yet
    assertThat(r.onData(0, bytes(0, 1000), 0, 1000, false)).isNull();
    assertThat(r.readableBytes()).isEqualTo(1500);
    ByteBuffer out = ByteBuffer.allocate(2000);
    assertThat(r.read(out)).isEqualTo(1500);
    for (int i = 0; i < 1500; i++) {
      assertThat(out.get(i)).isEqualTo((byte) i);
    }
  }

  @Test
  void bufferGrowsWithWhatArrivesAndSurvivesGrowthWithAGap() throws Exception {
    ReceiveStream r = new ReceiveStream(256 << 10);
    r.onData(0, bytes(0, 10), 0, 10, false);
    java.lang.reflect.Field f = ReceiveStream.class.getDeclaredField("buf");
    f.setAccessible(true);
    assertThat(((byte[]) f.get(r)).length).isEqualTo(512); // not the 256 KiB window
    // Out of order, far ahead: the ring grows and keeps the bytes already stored.
    r.onData(100_000, bytes(100_000 % 256, 1000), 0, 1000, false);
    r.onData(10, bytes(10, 99_990), 0, 99_990, false);
    ByteBuffer out = ByteBuffer.allocate(200_000);
    assertThat(r.read(out)).isEqualTo(101_000);
    for (int i = 0; i < 101_000; i++) {
      assertThat(out.get(i)).as("byte %d", i).isEqualTo((byte) i);
    }
  }

  @Test
  void sendsCreditOnceHalfTheWindowIsRead() {
    ReceiveStream r = new ReceiveStream(66_560);
    r.onData(0, bytes(0, 33_279), 0, 33_279, false);
    r.read(ByteBuffer.allocate(40_000));
    assertThat(r.creditUpdatePending()).isFalse();
    r.onData(33_279, bytes(0, 2), 0, 2, false);
    r.read(ByteBuffer.allocate(10));
    assertThat(r.creditUpdatePending()).isTrue();
    assertThat(r.takeCreditUpdate()).isEqualTo(33_281 + 66_560);
  }

  @Test
  void rejectsDataBeyondTheWindowAndChangedFinalSizes() {
    ReceiveStream r = new ReceiveStream(1000);
    assertThat(r.onData(900, bytes(0, 101), 0, 101, false))
        .isEqualTo(TransportError.FLOW_CONTROL_ERROR);
    assertThat(r.onData(0, bytes(0, 10), 0, 10, true)).isNull();
    assertThat(r.onData(0, bytes(0, 11), 0, 11, false)).isEqualTo(TransportError.FINAL_SIZE_ERROR);
    assertThat(r.onData(5, bytes(0, 4), 0, 4, true)).isEqualTo(TransportError.FINAL_SIZE_ERROR);
  }

  @Test
  void lostRangesAreRequeuedWithoutWhatWasAcknowledgedSince() {
    SendStream s = new SendStream(1 << 20, 1 << 20);
    s.write(bytes(0, 5000));
    EmittedFrame e = new EmittedFrame();
    ByteBuffer out = ByteBuffer.allocate(10_000);
    for (int i = 0; i < 5; i++) {
      assertThat(s.emit(4, out, 1000 + 4, 1 << 20, e)).isTrue();
    }
    s.onAcked(1000, 1000, false);
    s.onLost(0, 3000, false); // one loss report covering an acknowledged part
    out.clear();
    assertThat(s.emit(4, out, 5000, 1 << 20, e)).isTrue();
    assertThat(e.offset).isZero();
    assertThat(e.length).isEqualTo(1000);
    assertThat(e.freshBytes).isZero();
    assertThat(s.emit(4, out, 5000, 1 << 20, e)).isTrue();
    assertThat(e.offset).isEqualTo(2000);
    assertThat(e.length).isEqualTo(1000);
  }

  @Test
  void resetDropsUnsentDataAtOnce() {
    SendStream s = new SendStream(1 << 20, 1 << 20);
    s.write(bytes(0, 5000));
    EmittedFrame e = new EmittedFrame();
    s.emit(4, ByteBuffer.allocate(2000), 1004, 1 << 20, e);
    s.reset(7);
    assertThat(s.hasSendable(1 << 20)).isFalse();
    assertThat(s.resetPending()).isTrue();
    assertThat(s.resetFinalSize()).isEqualTo(1000);
    s.onLost(0, 1000, false);
    assertThat(s.hasSendable(1 << 20)).isFalse(); // nothing of a reset stream is retransmitted
  }

  @Test
  void rangeSetMatchesABitSet() {
    Random r = new Random(9);
    RangeSet set = new RangeSet();
    BitSet ref = new BitSet();
    for (int i = 0; i < 20_000; i++) {
      int a = r.nextInt(2000);
      int b = a + r.nextInt(50);
      if (r.nextInt(3) == 0) {
        set.remove(a, b);
        ref.clear(a, b);
      } else {
        set.add(a, b);
        ref.set(a, b);
      }
    }
    BitSet got = new BitSet();
    for (int i = 0; i < set.size(); i++) {
      assertThat(set.start(i)).isLessThan(set.end(i));
      if (i > 0) {
        assertThat(set.start(i)).isGreaterThan(set.end(i - 1));
      }
      got.set((int) set.start(i), (int) set.end(i));
    }
    assertThat(got).isEqualTo(ref);
  }
}
