package dev.tern.rpc.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Codec;
import io.grpc.DecompressorRegistry;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class GrpcMessageFramingTest {
  private static final DecompressorRegistry REGISTRY = DecompressorRegistry.getDefaultInstance();

  private static ByteBuffer ascii(String s) {
    return ByteBuffer.wrap(s.getBytes(StandardCharsets.US_ASCII));
  }

  private static byte[] bytes(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return out;
  }

  @Test
  void identityFrameIsFlagLengthPayload() {
    ByteBuffer framed = GrpcMessageFraming.encode(ascii("hi"), null);
    assertThat(bytes(framed)).containsExactly(0, 0, 0, 0, 2, 'h', 'i');
  }

  @Test
  void gzipFrameSetsTheFlagAndRoundTrips() {
    String text = "abcabcabc".repeat(1000);
    ByteBuffer framed = GrpcMessageFraming.encode(ascii(text), new Codec.Gzip());
    assertThat(framed.get(0)).isEqualTo(GrpcMessageFraming.FLAG_COMPRESSED);
    assertThat(framed.remaining()).isLessThan(text.length() / 10);
    ByteBuffer decoded = GrpcMessageFraming.decode(framed, "gzip", REGISTRY, 1 << 20);
    assertThat(new String(bytes(decoded), StandardCharsets.US_ASCII)).isEqualTo(text);
  }

  @Test
  void decodeRejectsOversizedMessagesBeforeAndAfterDecompression() {
    ByteBuffer plain = GrpcMessageFraming.encode(ByteBuffer.allocate(2000), null);
    assertThatThrownBy(() -> GrpcMessageFraming.decode(plain, "identity", REGISTRY, 1000))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
          assertThat(e.getStatus().getDescription()).contains("2000").contains("1000");
        });
    ByteBuffer bomb = GrpcMessageFraming.encode(ByteBuffer.allocate(100_000), new Codec.Gzip());
    assertThat(bomb.remaining()).isLessThan(1000);
    assertThatThrownBy(() -> GrpcMessageFraming.decode(bomb, "gzip", REGISTRY, 1000))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED));
  }

  @Test
  void malformedFramesAreInternalErrors() {
    assertThatThrownBy(() -> GrpcMessageFraming.decode(ByteBuffer.wrap(new byte[] {7, 0, 0, 0, 0}), null, REGISTRY, 10))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INTERNAL);
          assertThat(e.getStatus().getDescription()).contains("was 7");
        });
    assertThatThrownBy(() -> GrpcMessageFraming.decode(ByteBuffer.wrap(new byte[] {1, 0, 0, 0, 0}), "identity", REGISTRY, 10))
        .hasMessageContaining("no decompressor");
  }

  @Test
  void deframerReassemblesByteByByteAndHonoursRequestN() {
    List<String> got = new ArrayList<>();
    GrpcMessageDeframer d = new GrpcMessageDeframer(100, "gzip", REGISTRY,
        m -> got.add(new String(bytes(m), StandardCharsets.US_ASCII)));
    ByteBuffer stream = ByteBuffer.allocate(200);
    stream.put(GrpcMessageFraming.encode(ascii("one"), null));
    stream.put(GrpcMessageFraming.encode(ascii("two"), new Codec.Gzip()));
    stream.put(GrpcMessageFraming.encode(ascii(""), null));
    stream.flip();
    while (stream.hasRemaining()) {
      d.deframe(ByteBuffer.wrap(new byte[] {stream.get()}));
    }
    assertThat(got).isEmpty();
    assertThat(d.bufferedBytes()).isPositive();
    d.request(1);
    assertThat(got).containsExactly("one");
    d.request(5);
    assertThat(got).containsExactly("one", "two", "");
    assertThat(d.bufferedBytes()).isZero();
    assertThat(d.hasPartialMessage()).isFalse();
  }

  @Test
  void deframerFailsOnAnOversizedPrefixBeforeBufferingTheBody() {
    GrpcMessageDeframer d = new GrpcMessageDeframer(1024, "identity", REGISTRY, m -> { });
    d.request(1);
    ByteBuffer header = ByteBuffer.allocate(5);
    GrpcMessageFraming.writeHeader(header, false, 1 << 30);
    header.flip();
    assertThatThrownBy(() -> d.deframe(header)).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
      assertThat(e.getStatus().getDescription()).contains("1073741824").contains("1024");
    });
    d.deframe(ByteBuffer.allocate(10));
    assertThat(d.bufferedBytes()).as("input after a failure is ignored").isEqualTo(5);
  }
}
