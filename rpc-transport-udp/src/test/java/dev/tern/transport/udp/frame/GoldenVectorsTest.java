package dev.tern.transport.udp.frame;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.packet.ConnectionId;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** Every frame's encoder and decoder against the vectors of docs/protocol.md §6. */
class GoldenVectorsTest {
  private static final HexFormat HEX = HexFormat.of();

  private static byte[] encode(Consumer<ByteBuffer> writer) {
    ByteBuffer out = ByteBuffer.allocate(256);
    writer.accept(out);
    out.flip();
    byte[] b = new byte[out.remaining()];
    out.get(b);
    return b;
  }

  /** Decodes the vector through the FrameReader and returns the handler that recorded it. */
  private static RecordingHandler decode(String name) {
    RecordingHandler h = new RecordingHandler();
    ByteBuffer in = ByteBuffer.wrap(ProtocolVectors.hex(name));
    assertThat(new FrameReader().read(in, h)).as(name).isEqualTo(FrameReader.OK);
    assertThat(in.hasRemaining()).isFalse();
    return h;
  }

  private static void assertEncodes(String name, Consumer<ByteBuffer> writer) {
    assertThat(HEX.formatHex(encode(writer))).as(name)
        .isEqualTo(HEX.formatHex(ProtocolVectors.hex(name)));
  }

  @Test
  void paddingPingAndHandshakeDone() {
    assertEncodes("frame-padding", out -> SimpleFrames.encodePadding(out, 1));
    assertEncodes("frame-ping", SimpleFrames::encodePing);
    assertEncodes("frame-handshake-done", SimpleFrames::encodeHandshakeDone);
    assertThat(decode("frame-ping").events).containsExactly("ping");
    assertThat(decode("frame-handshake-done").events).containsExactly("handshake-done");
    assertThat(decode("frame-padding").events).isEmpty();
  }

  @Test
  void ack() {
    long[] hi = {100, 92};
    long[] lo = {96, 89};
    assertEncodes("frame-ack",
        out -> AckFrame.encode(out, hi, lo, 2, 1000_000L, null, null, 0, 100));
    AckFrame f = decode("frame-ack").ack;
    assertThat(f.rangeCount).isEqualTo(2);
    assertThat(f.largest[0]).isEqualTo(100);
    assertThat(f.smallest[0]).isEqualTo(96);
    assertThat(f.largest[1]).isEqualTo(92);
    assertThat(f.smallest[1]).isEqualTo(89);
    assertThat(f.ackDelay).isEqualTo(125);
    assertThat(f.ackDelayNs()).isEqualTo(1_000_000L);
    assertThat(f.hasTimestamps).isFalse();
  }

  @Test
  void ackWithReceiveTimestamps() {
    assertEncodes("frame-ack-ts", out -> AckFrame.encode(out, new long[] {100},
        new long[] {96}, 1, 1000_000L, new long[] {100, 99}, new long[] {1250, 1240}, 2, 100));
    AckFrame f = decode("frame-ack-ts").ack;
    assertThat(f.hasTimestamps).isTrue();
    assertThat(f.timestampCount).isEqualTo(2);
    assertThat(f.timestampPn[0]).isEqualTo(100);
    assertThat(f.timestampUs[0]).isEqualTo(1250);
    assertThat(f.timestampPn[1]).isEqualTo(99);
    assertThat(f.timestampUs[1]).isEqualTo(1240);
  }

  @Test
  void resetStreamAndStopSending() {
    assertEncodes("frame-reset-stream", out -> ResetStreamFrame.encode(out, 4, 16, 1000));
    ResetStreamFrame r = decode("frame-reset-stream").resetStream;
    assertThat(new long[] {r.streamId, r.applicationErrorCode, r.finalSize})
        .containsExactly(4, 16, 1000);
    assertEncodes("frame-stop-sending", out -> StopSendingFrame.encode(out, 4, 16));
    StopSendingFrame s = decode("frame-stop-sending").stopSending;
    assertThat(new long[] {s.streamId, s.applicationErrorCode}).containsExactly(4, 16);
  }

  @Test
  void crypto() {
    assertEncodes("frame-crypto", out -> {
      CryptoFrame.encodeHeader(out, 0, 3);
      out.put(HEX.parseHex("aabbcc"));
    });
    RecordingHandler h = decode("frame-crypto");
    assertThat(h.cryptoOffset).isZero();
    assertThat(h.data).isEqualTo("aabbcc");
  }

  @Test
  void streamWithOffsetLengthAndFin() {
    assertEncodes("frame-stream", out -> {
      StreamFrame.encodeHeader(out, 4, 1024, 3, true);
      out.put("abc".getBytes(StandardCharsets.US_ASCII));
    });
    RecordingHandler h = decode("frame-stream");
    assertThat(h.streamId).isEqualTo(4);
    assertThat(h.streamOffset).isEqualTo(1024);
    assertThat(h.fin).isTrue();
    assertThat(h.data).isEqualTo(HEX.formatHex("abc".getBytes(StandardCharsets.US_ASCII)));
  }

  @Test
  void streamWithoutOffsetAndWithoutLength() {
    assertEncodes("frame-stream-nooff", out -> {
      StreamFrame.encodeHeader(out, 0, 0, 2, false);
      out.put("hi".getBytes(StandardCharsets.US_ASCII));
    });
    RecordingHandler h = decode("frame-stream-nooff");
    assertThat(h.streamId).isZero();
    assertThat(h.fin).isFalse();
    assertThat(h.data).isEqualTo("6869");
    // No LEN bit: the data runs to the end of the payload. We never send this form; decode only.
    RecordingHandler toEnd = decode("frame-stream-toend");
    assertThat(toEnd.streamId).isEqualTo(8);
    assertThat(toEnd.streamOffset).isEqualTo(1024);
    assertThat(toEnd.data).isEqualTo("7879");
  }

  @Test
  void flowControlFrames() {
    assertEncodes("frame-max-data", out -> MaxDataFrame.encode(out, 1048576));
    assertThat(decode("frame-max-data").maxData.maximumData).isEqualTo(1048576);
    assertEncodes("frame-max-stream-data", out -> MaxStreamDataFrame.encode(out, 4, 66560));
    MaxStreamDataFrame m = decode("frame-max-stream-data").maxStreamData;
    assertThat(new long[] {m.streamId, m.maximumStreamData}).containsExactly(4, 66560);
    assertEncodes("frame-max-streams", out -> MaxStreamsFrame.encode(out, 100));
    assertThat(decode("frame-max-streams").maxStreams.maximumStreams).isEqualTo(100);
    assertEncodes("frame-data-blocked", out -> DataBlockedFrame.encode(out, 1048576));
    assertThat(decode("frame-data-blocked").dataBlocked.maximumData).isEqualTo(1048576);
    assertEncodes("frame-stream-data-blocked",
        out -> StreamDataBlockedFrame.encode(out, 4, 66560));
    StreamDataBlockedFrame b = decode("frame-stream-data-blocked").streamDataBlocked;
    assertThat(new long[] {b.streamId, b.maximumStreamData}).containsExactly(4, 66560);
  }

  @Test
  void newConnectionId() {
    byte[] token = HEX.parseHex("000102030405060708090a0b0c0d0e0f");
    ConnectionId cid = ConnectionId.of(HEX.parseHex("0102030405060708"));
    assertEncodes("frame-new-cid", out -> NewConnectionIdFrame.encode(out, 1, 0, cid, token));
    NewConnectionIdFrame f = decode("frame-new-cid").newCid;
    assertThat(f.sequenceNumber).isEqualTo(1);
    assertThat(f.retirePriorTo).isZero();
    assertThat(cid.matches(f.source, f.cidOffset, f.cidLength)).isTrue();
    assertThat(f.source.get(f.resetTokenOffset + 15)).isEqualTo((byte) 0x0f);
  }

  @Test
  void pathChallengeAndResponse() {
    assertEncodes("frame-path-challenge",
        out -> PathChallengeFrame.encode(out, 0x0011223344556677L));
    assertThat(decode("frame-path-challenge").pathChallenge).isEqualTo(0x0011223344556677L);
    assertEncodes("frame-path-response", out -> PathResponseFrame.encode(out, 0x0011223344556677L));
    assertThat(decode("frame-path-response").pathResponse).isEqualTo(0x0011223344556677L);
  }

  @Test
  void connectionCloseAndApplicationClose() {
    assertEncodes("frame-close", out -> ConnectionCloseFrame.encodeTransport(out,
        TransportError.PROTOCOL_VIOLATION, 0x08, "bad".getBytes(StandardCharsets.UTF_8)));
    ConnectionCloseFrame c = decode("frame-close").close;
    assertThat(c.application).isFalse();
    assertThat(TransportError.of(c.errorCode)).isEqualTo(TransportError.PROTOCOL_VIOLATION);
    assertThat(c.frameType).isEqualTo(8);
    assertThat(c.reason()).isEqualTo("bad");
    assertEncodes("frame-app-close", out -> ConnectionCloseFrame.encodeApplication(out, 16,
        new byte[0]));
    ConnectionCloseFrame a = decode("frame-app-close").close;
    assertThat(a.application).isTrue();
    assertThat(a.errorCode).isEqualTo(16);
    assertThat(a.reason()).isEmpty();
  }

  @Test
  void everyFrameTypeHasAVector() {
    assertThat(ProtocolVectors.names()).contains("frame-padding", "frame-ping", "frame-ack",
        "frame-ack-ts", "frame-reset-stream", "frame-stop-sending", "frame-crypto",
        "frame-stream", "frame-max-data", "frame-max-stream-data", "frame-max-streams",
        "frame-data-blocked", "frame-stream-data-blocked", "frame-new-cid",
        "frame-path-challenge", "frame-path-response", "frame-close", "frame-app-close",
        "frame-handshake-done");
  }
}
