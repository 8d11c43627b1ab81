package dev.tern.transport.udp.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.frame.StreamFrame;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * A stream records whether any of the peer's STREAM frames for it came in a 0-RTT packet, so that
 * the call layer can refuse a replayable request for a method that is not idempotent. The
 * connection tells the stream set, per packet, whether the packet is 0-RTT; here the set is told
 * directly, as 0-RTT packets are not yet routed to a connection.
 */
class EarlyDataFlagTest {
  private final StreamSet server = new StreamSet(false, StreamLimits.defaults(),
      new PriorityScheduler(), new StreamListener() {});
  private final ByteBuffer data = ByteBuffer.wrap(new byte[100]);

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

  @Test
  void aStreamOpenedIn0RttRecordsIt() {
    server.receivingEarlyData(true);
    assertThat(server.onStreamFrame(frame(0, 0, 40, false))).isNull();
    server.receivingEarlyData(false);
    assertThat(server.get(0).receivedInEarlyData()).isTrue();
    // The rest of its request in 1-RTT does not undo it: the early part can be replayed.
    assertThat(server.onStreamFrame(frame(0, 40, 10, true))).isNull();
    assertThat(server.get(0).receivedInEarlyData()).isTrue();
  }

  @Test
  void aStreamWhoseDataAllCameIn1RttDoesNot() {
    assertThat(server.onStreamFrame(frame(0, 0, 40, true))).isNull();
    assertThat(server.get(0).receivedInEarlyData()).isFalse();
    // Streams opened implicitly below a stream named in 0-RTT (RFC 9000 §3.2) have received
    // nothing: they are not marked until a frame of theirs comes early.
    server.receivingEarlyData(true);
    assertThat(server.onStreamFrame(frame(8, 0, 10, false))).isNull();
    server.receivingEarlyData(false);
    assertThat(server.get(4).receivedInEarlyData()).isFalse();
    assertThat(server.get(8).receivedInEarlyData()).isTrue();
  }

  @Test
  void aStreamInA1RttPacketAfterA0RttOneIsNotMarked() {
    server.receivingEarlyData(true);
    server.onStreamFrame(frame(0, 0, 10, false));
    server.receivingEarlyData(false);
    server.onStreamFrame(frame(4, 0, 10, false));
    assertThat(server.get(0).receivedInEarlyData()).isTrue();
    assertThat(server.get(4).receivedInEarlyData()).isFalse();
  }

  @Test
  void aReusedStreamStartsUnmarked() {
    server.receivingEarlyData(true);
    server.onStreamFrame(frame(0, 0, 10, true));
    server.receivingEarlyData(false);
    Stream s = server.get(0);
    assertThat(s.receivedInEarlyData()).isTrue();
    s.recycle(4, 1 << 20);
    assertThat(s.receivedInEarlyData()).isFalse();
  }
}
