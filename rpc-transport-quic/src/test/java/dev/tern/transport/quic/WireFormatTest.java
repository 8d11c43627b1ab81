package dev.tern.transport.quic;

import dev.tern.rpc.spi.GrpcTimeout;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.rpc.Priority;
import dev.tern.rpc.spi.RequestHeaders;
import io.grpc.Deadline;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.netty.handler.codec.http3.Http3Headers;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Header mapping, grpc-timeout, grpc-message and the version bit set. */
class WireFormatTest {

  @Test
  void grpcTimeoutKeepsEightDigitsAndRoundsUp() {
    assertThat(GrpcTimeout.encode(1)).isEqualTo("1n");
    assertThat(GrpcTimeout.encode(99_999_999)).isEqualTo("99999999n");
    assertThat(GrpcTimeout.encode(100_000_000)).isEqualTo("100000u");
    assertThat(GrpcTimeout.encode(TimeUnit.SECONDS.toNanos(300))).isEqualTo("300000m");
    assertThat(GrpcTimeout.encode(TimeUnit.DAYS.toNanos(3))).isEqualTo("259200S");
    assertThat(GrpcTimeout.decode("250m")).isEqualTo(TimeUnit.MILLISECONDS.toNanos(250));
    assertThat(GrpcTimeout.decode("2H")).isEqualTo(TimeUnit.HOURS.toNanos(2));
    assertThat(GrpcTimeout.decode(GrpcTimeout.encode(123_456_789_012L))).isGreaterThanOrEqualTo(123_456_789_012L);
    assertThatThrownBy(() -> GrpcTimeout.decode("123456789m")).hasMessageContaining("123456789m");
    assertThatThrownBy(() -> GrpcTimeout.decode("12x")).hasMessageContaining("12x");
  }

  @Test
  void grpcMessageIsPercentEncodedAsUtf8() {
    assertThat(GrpcHttp3Headers.percentEncode("plain text")).isEqualTo("plain text");
    assertThat(GrpcHttp3Headers.percentEncode("100% ✓\n")).isEqualTo("100%25 %E2%9C%93%0A");
    assertThat(GrpcHttp3Headers.percentDecode("100%25 %E2%9C%93%0A")).isEqualTo("100% ✓\n");
    assertThat(GrpcHttp3Headers.percentDecode("bad %zz end%")).isEqualTo("bad %zz end%");
  }

  @Test
  void requestHeadersSurviveTheHeaderSection() {
    Metadata md = new Metadata();
    md.put(Metadata.Key.of("x-user", Metadata.ASCII_STRING_MARSHALLER), "ada");
    md.put(Metadata.Key.of("x-blob-bin", Metadata.BINARY_BYTE_MARSHALLER), new byte[] {1, 2, (byte) 0xfe});
    RequestHeaders in = RequestHeaders.builder("pkg.Svc/Do").authority("example.test:443").metadata(md)
        .deadline(Deadline.after(5, TimeUnit.SECONDS)).messageEncoding("gzip").priority(Priority.of(6, true))
        .earlyDataAllowed(true).build();
    Http3Headers h = GrpcHttp3Headers.request(in, null);
    assertThat(h.method().toString()).isEqualTo("POST");
    assertThat(h.path().toString()).isEqualTo("/pkg.Svc/Do");
    assertThat(h.get("content-type").toString()).isEqualTo("application/grpc");
    assertThat(h.get("te").toString()).isEqualTo("trailers");
    assertThat(h.get("priority").toString()).isEqualTo("u=6, i");
    assertThat(h.get("x-blob-bin").toString()).isEqualTo("AQL+");

    RequestHeaders out = GrpcHttp3Headers.parseRequest(h, false);
    assertThat(out.fullMethodName()).isEqualTo("pkg.Svc/Do");
    assertThat(out.authority()).isEqualTo("example.test:443");
    assertThat(out.messageEncoding()).isEqualTo("gzip");
    assertThat(out.priority()).isEqualTo(Priority.of(6, true));
    assertThat(out.earlyDataAllowed()).isTrue();
    assertThat(out.deadline().timeRemaining(TimeUnit.MILLISECONDS)).isBetween(4000L, 5000L);
    assertThat(out.metadata().get(Metadata.Key.of("x-user", Metadata.ASCII_STRING_MARSHALLER))).isEqualTo("ada");
    assertThat(out.metadata().get(Metadata.Key.of("x-blob-bin", Metadata.BINARY_BYTE_MARSHALLER)))
        .containsExactly(1, 2, (byte) 0xfe);
    assertThat(out.metadata().keys()).doesNotContain("te", "grpc-timeout", "tern-early-data", "priority");
  }

  @Test
  void aRequestThatIsNotGrpcIsRefusedWithAStatus() {
    Http3Headers h = GrpcHttp3Headers.request(RequestHeaders.builder("a.B/C").build(), "x:1");
    h.set("content-type", "text/html");
    assertThatThrownBy(() -> GrpcHttp3Headers.parseRequest(h, false))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getDescription()).contains("text/html"));
  }

  @Test
  void trailersCarryStatusAndNon200MapsLikeGrpcOverHttp2() {
    Http3Headers t = GrpcHttp3Headers.trailers(Status.NOT_FOUND.withDescription("no such ✗"), new Metadata(), false);
    assertThat(t.status().toString()).isEqualTo("200");
    Status s = GrpcHttp3Headers.statusOf(t);
    assertThat(s.getCode()).isEqualTo(Status.Code.NOT_FOUND);
    assertThat(s.getDescription()).isEqualTo("no such ✗");
    assertThat(GrpcHttp3Headers.httpStatusToGrpc("503").getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(GrpcHttp3Headers.httpStatusToGrpc("404").getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
  }

  @Test
  void versionSetsMeetAtTheHighestCommonVersion() {
    long client = TernVersions.toBits(new int[] {1, 2, 5});
    assertThat(TernVersions.fromBits(client)).containsExactly(5, 2, 1);
    assertThat(TernVersions.highestCommon(client, TernVersions.toBits(new int[] {2, 3}))).isEqualTo(2);
    assertThat(TernVersions.highestCommon(client, TernVersions.toBits(new int[] {62}))).isZero();
    assertThatThrownBy(() -> TernVersions.toBits(new int[] {63})).hasMessageContaining("63");
    assertThatThrownBy(() -> TernVersions.toBits(new int[0])).hasMessageContaining("at least one");
    Status none = TernVersions.noCommonVersion(TernVersions.toBits(new int[] {1}), TernVersions.toBits(new int[] {3, 2}));
    assertThat(none.getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
    assertThat(none.getDescription()).contains("[1]").contains("[3,2]");
    // RFC 9114 §7.2.4.1: not of the reserved 0x1f * N + 0x21 form.
    assertThat((TernVersions.SETTING_ID - 0x21) % 0x1f).isNotZero();
  }
}
