package dev.tern.transport.udp.frame;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Seeded random round trips and malformed input for the frame codecs. */
class FrameRoundTripTest {

  private static long randomVarint(Random r) {
    return r.nextLong() >>> (2 + r.nextInt(62));
  }

  @Test
  void randomFramesRoundTrip() {
    Random r = new Random(42);
    ByteBuffer buf = ByteBuffer.allocate(4096);
    FrameReader reader = new FrameReader();
    for (int i = 0; i < 5_000; i++) {
      buf.clear();
      long id = randomVarint(r);
      long a = randomVarint(r);
      long offset = randomVarint(r) >>> 1;
      int len = r.nextInt(200);
      boolean fin = r.nextBoolean();
      StreamFrame.encodeHeader(buf, id, offset, len, fin);
      for (int k = 0; k < len; k++) {
        buf.put((byte) k);
      }
      ResetStreamFrame.encode(buf, id, a, offset);
      MaxStreamDataFrame.encode(buf, id, a);
      int ranges = 1 + r.nextInt(40);
      long[] hi = new long[ranges];
      long[] lo = new long[ranges];
      long next = 1_000_000 + randomVarint(r) % 1_000_000_000L;
      for (int k = 0; k < ranges; k++) {
        hi[k] = next;
        lo[k] = next - r.nextInt(50);
        next = lo[k] - 2 - r.nextInt(30);
      }
      int written = AckFrame.encode(buf, hi, lo, ranges, r.nextInt(1 << 20) * 1000L, null, null,
          0, 4000);
      buf.flip();
      RecordingHandler h = new RecordingHandler();
      assertThat(reader.read(buf, h)).isEqualTo(FrameReader.OK);
      assertThat(h.events).containsExactly("stream", "reset", "max-stream-data", "ack");
      assertThat(h.streamId).isEqualTo(id);
      assertThat(h.streamOffset).isEqualTo(offset);
      assertThat(h.fin).isEqualTo(fin);
      assertThat(h.data.length()).isEqualTo(2 * len);
      assertThat(h.resetStream.finalSize).isEqualTo(offset);
      assertThat(h.maxStreamData.maximumStreamData).isEqualTo(a);
      assertThat(written).isEqualTo(ranges);
      assertThat(h.ack.rangeCount).isEqualTo(ranges);
      for (int k = 0; k < ranges; k++) {
        assertThat(h.ack.largest[k]).isEqualTo(hi[k]);
        assertThat(h.ack.smallest[k]).isEqualTo(lo[k]);
      }
    }
  }

  @Test
  void everyTruncationOfEveryVectorIsRejectedWithoutAnException() {
    FrameReader reader = new FrameReader();
    for (String name : ProtocolVectors.names()) {
      if (!name.startsWith("frame-") || name.equals("frame-stream-toend")
          || name.equals("frame-padding") || name.equals("frame-ping")
          || name.equals("frame-handshake-done")) {
        continue;
      }
      byte[] full = ProtocolVectors.hex(name);
      for (int cut = 1; cut < full.length; cut++) {
        ByteBuffer in = ByteBuffer.wrap(full, 0, cut);
        assertThat(reader.read(in, new RecordingHandler())).as("%s cut at %d", name, cut)
            .isNotEqualTo(FrameReader.OK);
      }
    }
  }

  @Test
  void randomGarbageNeverThrows() {
    Random r = new Random(1);
    FrameReader reader = new FrameReader();
    byte[] b = new byte[64];
    int rejected = 0;
    for (int i = 0; i < 100_000; i++) {
      r.nextBytes(b);
      if (reader.read(ByteBuffer.wrap(b, 0, 1 + r.nextInt(64)), new RecordingHandler())
          != FrameReader.OK) {
        rejected++;
      }
    }
    assertThat(rejected).isGreaterThan(50_000);
  }

  @Test
  void ackRangesAreBoundedAndMayNotGoBelowZero() {
    ByteBuffer buf = ByteBuffer.allocate(64);
    // largest 5, first range 2 (3..5), gap 0 -> next largest 1, length 5 -> below zero.
    buf.put((byte) 0x02).put((byte) 5).put((byte) 0).put((byte) 1).put((byte) 2).put((byte) 0)
        .put((byte) 5).flip();
    assertThat(new FrameReader().read(buf, new RecordingHandler())).isEqualTo(FrameType.ACK);
    buf.clear();
    // 257 extra ranges is over the limit.
    buf.put((byte) 0x02).put((byte) 5).put((byte) 0).putShort((short) (0x4000 | 257)).flip();
    assertThat(new FrameReader().read(buf, new RecordingHandler())).isEqualTo(FrameType.ACK);
  }

  @Test
  void unknownFrameTypeIsAnEncodingError() {
    ByteBuffer buf = ByteBuffer.wrap(new byte[] {0x07});
    assertThat(new FrameReader().read(buf, new RecordingHandler())).isEqualTo(7);
  }
}
