package dev.tern.transport.udp.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.connection.Connection;
import dev.tern.transport.udp.connection.ConnectionState;
import dev.tern.transport.udp.frame.MaxStreamsFrame;
import dev.tern.transport.udp.frame.StreamFrame;
import dev.tern.transport.udp.frame.TransportError;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The pair harness really gets frames past packet protection, both ways, and keeps talking. */
class PairHarnessTest {
  private static byte[] streamFrame(long id, String data) {
    byte[] d = data.getBytes(StandardCharsets.US_ASCII);
    ByteBuffer out = ByteBuffer.allocate(64);
    StreamFrame.encodeHeader(out, id, 0, d.length, false);
    out.put(d);
    return Arrays.copyOf(out.array(), out.position());
  }

  @Test
  void splicedFramesReachTheServersStreams() {
    PairHarness pair = new PairHarness();
    Connection server = pair.serverConnection();
    assertThat(server.stream(4)).isNull();
    pair.splice(false, streamFrame(4, "abc"));
    assertThat(pair.spliced).isEqualTo(1);
    assertThat(server.stream(4)).as("a stream the client never opened").isNotNull();
    assertThat(server.stream(4).receive().readableBytes()).isEqualTo(3);
    // The pair goes on: the client's own data still arrives and nothing closed.
    pair.splice(false, new byte[] {1}); // PING
    pair.runTimers(4);
    assertThat(server.state()).isEqualTo(ConnectionState.ESTABLISHED);
    assertThat(pair.client.state()).isEqualTo(ConnectionState.ESTABLISHED);
    assertThat(server.stream(0).receive().readableBytes()).isEqualTo(4); // "hi", 'c', 'c'
    assertThat(pair.server.demux().packetsFailedToOpen()).isZero();
  }

  @Test
  void splicedFramesReachTheClient() {
    PairHarness pair = new PairHarness();
    ByteBuffer out = ByteBuffer.allocate(16);
    MaxStreamsFrame.encode(out, 1L << 61); // over RFC 9000 §19.11's 2^60: FRAME_ENCODING_ERROR
    pair.splice(true, Arrays.copyOf(out.array(), out.position()));
    assertThat(pair.spliced).isEqualTo(1);
    assertThat(pair.client.closeError()).isEqualTo(TransportError.FRAME_ENCODING_ERROR);
  }

  @Test
  void aMalformedFrameClosesTheServerWithTheProtocolsError() {
    PairHarness pair = new PairHarness();
    pair.splice(false, new byte[] {0x3f, 0x3f}); // no such frame type
    assertThat(pair.serverConnection().closeError()).isEqualTo(TransportError.FRAME_ENCODING_ERROR);
  }

  @Test
  void theSeedsRunClean() {
    for (Map.Entry<String, byte[]> seed : PairSeeds.all().entrySet()) {
      new ConnectionPairFuzzTest().conversation(seed.getValue());
    }
  }
}
