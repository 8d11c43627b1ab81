package dev.tern.transport.udp.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.rpc.Priority;
import dev.tern.rpc.spi.RequestHeaders;
import io.grpc.Deadline;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The RPC mapping's records (docs/protocol.md §10) round-trip and reject what is malformed. */
class RpcFramingTest {
  private static final Metadata.Key<String> ASCII =
      Metadata.Key.of("x-note", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<byte[]> BINARY =
      Metadata.Key.of("x-blob-bin", Metadata.BINARY_BYTE_MARSHALLER);

  private static ByteBuffer payload(ByteBuffer record, int type) {
    assertThat(record.get(0) & 0xff).isEqualTo(type);
    assertThat(record.getInt(1)).isEqualTo(record.remaining() - RpcFraming.PREFIX);
    record.position(RpcFraming.PREFIX);
    return record;
  }

  @Test
  void requestHeaderRoundTrips() {
    Metadata md = new Metadata();
    md.put(ASCII, "one, two");
    md.put(ASCII, "three");
    md.put(BINARY, new byte[] {0, (byte) 0xff, '\r', '\n'});
    md.put(BINARY, new byte[0]);
    RequestHeaders h = RequestHeaders.builder("pkg.Svc/Method").authority("example:443")
        .metadata(md).deadline(Deadline.after(5, TimeUnit.SECONDS)).messageEncoding("gzip")
        .acceptedMessageEncodings(List.of("gzip", "identity")).priority(Priority.of(1, true))
        .earlyDataAllowed(true).idempotent(true).build();
    ByteBuffer r = RpcFraming.requestHeader(h, 2, "default:1");
    RpcFraming.Request back = RpcFraming.parseRequest(payload(r, RpcFraming.REQUEST_HEADER),
        false);
    assertThat(back.version).isEqualTo(2);
    RequestHeaders b = back.headers;
    assertThat(b.fullMethodName()).isEqualTo("pkg.Svc/Method");
    assertThat(b.authority()).isEqualTo("example:443");
    assertThat(b.messageEncoding()).isEqualTo("gzip");
    assertThat(b.acceptedMessageEncodings()).containsExactly("gzip", "identity");
    assertThat(b.priority()).isEqualTo(Priority.of(1, true));
    assertThat(b.earlyDataAllowed()).isTrue();
    assertThat(b.idempotent()).isTrue();
    assertThat(b.deadline().timeRemaining(TimeUnit.MILLISECONDS)).isBetween(1L, 5000L);
    assertThat(b.metadata().getAll(ASCII)).containsExactly("one, two", "three");
    assertThat(b.metadata().getAll(BINARY))
        .containsExactly(new byte[] {0, (byte) 0xff, '\r', '\n'}, new byte[0]);
  }

  @Test
  void requestWithoutOptionsUsesDefaults() {
    RequestHeaders h = RequestHeaders.builder("a.B/C").build();
    RpcFraming.Request back = RpcFraming.parseRequest(
        payload(RpcFraming.requestHeader(h, 1, "host:1"), RpcFraming.REQUEST_HEADER), false);
    assertThat(back.headers.authority()).isEqualTo("host:1");
    assertThat(back.headers.deadline()).isNull();
    assertThat(back.headers.messageEncoding()).isEqualTo("identity");
    assertThat(back.headers.priority()).isEqualTo(Priority.DEFAULT);
  }

  @Test
  void trailersCarryStatusDescriptionAndMetadataExactly() {
    Metadata md = new Metadata();
    md.put(BINARY, new byte[] {1, 2, 3});
    md.put(Metadata.Key.of("grpc-status", Metadata.ASCII_STRING_MARSHALLER), "0");
    String awkward = "caf\u00e9 \r\n 100% %zz \u2603";
    ByteBuffer r = RpcFraming.trailers(Status.FAILED_PRECONDITION.withDescription(awkward), md);
    RpcFraming.Trailers t = RpcFraming.parseTrailers(payload(r, RpcFraming.TRAILERS));
    assertThat(t.status.getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
    assertThat(t.status.getDescription()).isEqualTo(awkward);
    assertThat(t.metadata.get(BINARY)).containsExactly(1, 2, 3);
    assertThat(t.metadata.containsKey(Metadata.Key.of("grpc-status",
        Metadata.ASCII_STRING_MARSHALLER))).as("the status travels in its own field").isFalse();
  }

  @Test
  void responseHeadersCarryTheEncoding() {
    Metadata md = new Metadata();
    md.put(ASCII, "v");
    RpcFraming.Response r = RpcFraming.parseResponse(
        payload(RpcFraming.responseHeaders(md, "gzip"), RpcFraming.RESPONSE_HEADERS));
    assertThat(r.encoding).isEqualTo("gzip");
    assertThat(r.metadata.get(ASCII)).isEqualTo("v");
  }

  @Test
  void malformedRecordsFailWithInternalNamingTheField() {
    ByteBuffer r = RpcFraming.trailers(Status.OK, new Metadata());
    ByteBuffer cut = ByteBuffer.wrap(new byte[] {(byte) 0x01});
    assertThatThrownBy(() -> RpcFraming.parseTrailers(cut))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INTERNAL);
          assertThat(e.getStatus().getDescription()).contains("status description");
        });
    ByteBuffer extra = ByteBuffer.allocate(r.remaining() + 1);
    extra.put(r).put((byte) 7).flip();
    extra.position(RpcFraming.PREFIX);
    assertThatThrownBy(() -> RpcFraming.parseTrailers(extra))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getDescription()).contains("after the last field"));
    ByteBuffer badCode = ByteBuffer.wrap(new byte[] {0x3f, 0, 0});
    assertThatThrownBy(() -> RpcFraming.parseTrailers(badCode))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getDescription()).contains("status code 63"));
  }

  @Test
  void readerRejectsOversizeMessagesBeforeBufferingThem() {
    RecordReader reader = new RecordReader(1024, 8192);
    ByteBuffer prefix = ByteBuffer.allocate(5).put((byte) 0).putInt(4096).flip();
    assertThatThrownBy(() -> reader.feed(prefix))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
          assertThat(e.getStatus().getDescription())
              .isEqualTo("gRPC message exceeds maximum size 1024: 4096");
        });
  }

  @Test
  void readerTakesOnlyWhatTheCurrentRecordNeeds() {
    RecordReader reader = new RecordReader(1024, 8192);
    ByteBuffer two = ByteBuffer.allocate(5 + 3 + 5 + 1)
        .put((byte) 0).putInt(3).put(new byte[] {1, 2, 3})
        .put((byte) 0x7f).putInt(1).put((byte) 9).flip();
    assertThat(reader.needed()).isEqualTo(5);
    reader.feed(two);
    assertThat(reader.hasRecord()).isTrue();
    assertThat(two.remaining()).as("the next record stays unread").isEqualTo(6);
    ByteBuffer first = reader.take();
    assertThat(first.remaining()).isEqualTo(8);
    assertThatThrownBy(() -> reader.feed(two))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getDescription()).contains("unknown record type 0x7f"));
  }

  @Test
  void readerReassemblesALargeRecordAsItsBytesArrive() {
    int size = 300_000;
    RecordReader reader = new RecordReader(1 << 20, 8192);
    ByteBuffer all = ByteBuffer.allocate(5 + size).put((byte) 0).putInt(size);
    for (int i = 0; i < size; i++) {
      all.put((byte) (i * 7 + (i >>> 11)));
    }
    all.flip();
    while (!reader.hasRecord()) {
      ByteBuffer chunk = all.duplicate();
      chunk.limit(Math.min(all.limit(), all.position() + 1000));
      int before = chunk.position();
      reader.feed(chunk);
      all.position(all.position() + (chunk.position() - before));
    }
    ByteBuffer record = reader.take();
    assertThat(record.remaining()).isEqualTo(5 + size);
    all.rewind();
    assertThat(record).isEqualTo(all);
    assertThat(reader.atBoundary()).isTrue();
  }
}
