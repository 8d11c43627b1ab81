package dev.tern.transport.udp.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.frame.ResetStreamFrame;
import dev.tern.transport.udp.frame.StreamFrame;
import dev.tern.transport.udp.recovery.SentFrameSink;
import dev.tern.transport.udp.recovery.SentPacketLog;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A stream is dropped, once, as soon as both halves are over (RFC 9000 §3), however the call
 * ended, and a peer's stream gives its slot back (MAX_STREAMS, RFC 9000 §4.6). The two endings
 * here are those of cancelled calls whose frames crossed the peer's: a half the application
 * stopped whose final size arrives after its sending half was done, and a half the peer reset
 * that the application, told of the reset, never reads again.
 */
class StreamReleaseTest {
  private static final long CANCELLED = 8;

  private final List<Long> closed = new ArrayList<>();
  private final List<Long> resets = new ArrayList<>();
  private final ByteBuffer data = ByteBuffer.wrap(new byte[100]);
  private final SentPacketLog log = new SentPacketLog();
  private StreamSet set;

  /** Records closes; answers a peer's reset as the call layer does: resets its own half only. */
  private final StreamListener listener = new StreamListener() {
    @Override
    public void onReset(Stream stream, long code) {
      resets.add(stream.id());
      set.reset(stream, CANCELLED);
    }

    @Override
    public void onClosed(Stream stream) {
      closed.add(stream.id());
    }
  };

  private StreamFrame frame(long id, long offset, int length, boolean fin) {
    StreamFrame f = new StreamFrame();
    f.streamId = id;
    f.offset = offset;
    f.length = length;
    f.fin = fin;
    f.source = data;
    f.dataOffset = 0;
    return f;
  }

  private static ResetStreamFrame reset(long id, long finalSize) {
    ResetStreamFrame f = new ResetStreamFrame();
    f.streamId = id;
    f.applicationErrorCode = CANCELLED;
    f.finalSize = finalSize;
    return f;
  }

  /** Sends what the set has to send (in one packet) and has the peer acknowledge all of it. */
  private void sendAndAcknowledge(StreamFrameWriter writer) {
    long pn = log.beginPacket();
    ByteBuffer out = ByteBuffer.allocate(1500);
    writer.writeControlFrames(out, out.limit(), log);
    writer.writeStreamFrames(out, out.limit(), log);
    log.endPacket(0, out.position(), true, true);
    log.close(pn, true, new SentFrameSink() {
      @Override
      public void onFrameAcked(byte type, long a, long b, int length) {
        writer.onAcked(type, a, b, length, listener);
      }

      @Override
      public void onFrameLost(byte type, long a, long b, int length) {
        throw new AssertionError("nothing is lost here");
      }
    });
  }

  @Test
  void aStoppedHalfIsReleasedWhenItsFinalSizeComesAfterItsSendingHalfWasDone() {
    set = new StreamSet(true, StreamLimits.defaults(), new PriorityScheduler(), listener);
    set.setPeerLimits(1 << 20, 1 << 20, 100);
    StreamFrameWriter writer = new StreamFrameWriter(set);
    Stream s = set.open();
    long id = s.id();
    set.write(s, ByteBuffer.wrap(new byte[30]));
    set.finish(s);
    sendAndAcknowledge(writer); // the request and its FIN are acknowledged: the half is done

    // The call is cancelled: nothing of the request is left to reset, the response is stopped.
    set.reset(s, CANCELLED);
    set.stopSending(s, CANCELLED);
    assertThat(closed).isEmpty();
    // The response, sent before the peer saw STOP_SENDING, comes with its FIN; the peer had it
    // acknowledged before STOP_SENDING reached it, so no RESET_STREAM follows.
    assertThat(set.onStreamFrame(frame(id, 0, 20, true))).isNull();
    set.deliverNotifications();

    assertThat(closed).containsExactly(id);
    assertThat(set.size()).isZero();
    assertThat(set.isIdle()).isTrue();
  }

  @Test
  void aResetHalfIsReleasedOnceTheApplicationWasToldAndItsSlotComesBack() {
    int limit = 4;
    set = new StreamSet(false, new StreamLimits(1 << 20, 1 << 16, limit, 1 << 16),
        new PriorityScheduler(), listener);
    set.setPeerLimits(1 << 20, 1 << 16, 100);
    StreamFrameWriter writer = new StreamFrameWriter(set);
    // Three times the stream limit, one stream at a time: each slot must come back.
    for (int i = 0; i < 3 * limit; i++) {
      long id = (long) i << 2;
      long finalSize = 0;
      if (i % 2 == 1) {
        // Part of the request came and was read; its FIN did not.
        assertThat(set.onStreamFrame(frame(id, 0, 12, false))).isNull();
        set.deliverNotifications();
        assertThat(set.read(set.get(id), ByteBuffer.allocate(100))).isEqualTo(12);
        finalSize = 12;
      }
      // The client cancelled: RESET_STREAM (before any data for even i), and the application,
      // told of it, resets its own half and reads nothing more.
      assertThat(set.onResetStream(reset(id, finalSize))).as("stream %d", id).isNull();
      set.deliverNotifications();
      assertThat(resets).contains(id);
      sendAndAcknowledge(writer); // our RESET_STREAM and any MAX_STREAMS are acknowledged

      assertThat(closed).as("stream %d", id).endsWith(id);
      assertThat(set.size()).isZero();
    }
    assertThat(closed).hasSize(3 * limit).doesNotHaveDuplicates();
    assertThat(set.isIdle()).isTrue();
  }
}
