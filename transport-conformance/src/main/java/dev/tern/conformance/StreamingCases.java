package dev.tern.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.spi.RequestHeaders;
import io.grpc.Deadline;
import io.grpc.Metadata;
import io.grpc.Status;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Cases on what one stream carries: messages each way, metadata, status, cancellation. */
public abstract class StreamingCases extends LifecycleCases {
  static final Metadata.Key<String> ASCII_KEY = Metadata.Key.of("conformance-ascii", Metadata.ASCII_STRING_MARSHALLER);
  static final Metadata.Key<byte[]> BINARY_KEY = Metadata.Key.of("conformance-bin", Metadata.BINARY_BYTE_MARSHALLER);
  static final byte[] BINARY = {0, 1, 2, (byte) 0xff, (byte) 0x80, 10, 13};

  /** Case: Unary call round trips. */
  @Test
  protected void unaryCallRoundTrips() throws Exception {
    Started server = startServer();
    Call call = newCall(connectReady(server), headers("Unary", server).build());
    call.stream.request(1);
    call.stream.writeMessage(utf8("ping"));
    call.stream.halfClose();
    ServerStreamRecorder s = acceptStream(server);
    s.stream.request(1);
    assertThat(utf8(s.nextMessage(timeout()))).isEqualTo("ping");
    await(s.halfClosed, "onHalfClose");
    s.stream.writeHeaders(new Metadata());
    s.stream.writeMessage(utf8("pong"));
    s.stream.close(Status.OK, new Metadata());
    await(call.recorder.headers, "response headers");
    assertThat(utf8(call.recorder.nextMessage(timeout()))).isEqualTo("pong");
    assertThat(await(call.recorder.closed, "onClose").status.isOk()).isTrue();
    await(s.completed, "server onComplete");
  }

  /** Case: Client streaming delivers every message in order. */
  @Test
  protected void clientStreamingDeliversEveryMessageInOrder() throws Exception {
    Started server = startServer();
    Call call = newCall(connectReady(server), headers("ClientStreaming", server).build());
    for (int i = 0; i < 10; i++) {
      call.stream.writeMessage(utf8("m" + i));
    }
    call.stream.halfClose();
    ServerStreamRecorder s = acceptStream(server);
    s.stream.request(10);
    for (int i = 0; i < 10; i++) {
      ByteBuffer m = s.nextMessage(timeout());
      assertThat(m).as("message %d", i).isNotNull();
      assertThat(utf8(m)).isEqualTo("m" + i);
    }
    await(s.halfClosed, "onHalfClose after the last message");
    s.stream.close(Status.OK, new Metadata());
    assertThat(await(call.recorder.closed, "onClose").status.isOk()).isTrue();
  }

  /** Case: Server streaming delivers every message in order. */
  @Test
  protected void serverStreamingDeliversEveryMessageInOrder() throws Exception {
    Started server = startServer();
    Call call = newCall(connectReady(server), headers("ServerStreaming", server).build());
    call.stream.writeMessage(utf8("go"));
    call.stream.halfClose();
    call.stream.request(20);
    ServerStreamRecorder s = acceptStream(server);
    s.stream.writeHeaders(new Metadata());
    for (int i = 0; i < 20; i++) {
      s.stream.writeMessage(utf8("r" + i));
    }
    s.stream.close(Status.OK, new Metadata());
    for (int i = 0; i < 20; i++) {
      ByteBuffer m = call.recorder.nextMessage(timeout());
      assertThat(m).as("response %d", i).isNotNull();
      assertThat(utf8(m)).isEqualTo("r" + i);
    }
    assertThat(await(call.recorder.closed, "onClose").status.isOk()).isTrue();
  }

  /** Case: Bidi streaming ping pongs. */
  @Test
  protected void bidiStreamingPingPongs() throws Exception {
    Started server = startServer();
    Call call = newCall(connectReady(server), headers("Bidi", server).build());
    ServerStreamRecorder s = null;
    for (int i = 0; i < 5; i++) {
      call.stream.request(1);
      call.stream.writeMessage(utf8("ping" + i));
      if (s == null) {
        s = acceptStream(server);
        s.stream.writeHeaders(new Metadata());
      }
      s.stream.request(1);
      ByteBuffer in = s.nextMessage(timeout());
      assertThat(in).as("ping %d", i).isNotNull();
      assertThat(utf8(in)).isEqualTo("ping" + i);
      s.stream.writeMessage(utf8("pong" + i));
      ByteBuffer out = call.recorder.nextMessage(timeout());
      assertThat(out).as("pong %d", i).isNotNull();
      assertThat(utf8(out)).isEqualTo("pong" + i);
    }
    call.stream.halfClose();
    await(s.halfClosed, "onHalfClose");
    s.stream.close(Status.OK, new Metadata());
    assertThat(await(call.recorder.closed, "onClose").status.isOk()).isTrue();
  }

  /** Case: Empty stream closes cleanly. */
  @Test
  protected void emptyStreamClosesCleanly() throws Exception {
    Started server = startServer();
    Call call = newCall(connectReady(server), headers("Empty", server).build());
    call.stream.request(1);
    call.stream.halfClose();
    ServerStreamRecorder s = acceptStream(server);
    s.stream.request(1);
    await(s.halfClosed, "onHalfClose");
    assertThat(s.pendingMessages()).isZero();
    s.stream.writeHeaders(new Metadata());
    s.stream.close(Status.OK, new Metadata());
    assertThat(await(call.recorder.closed, "onClose").status.isOk()).isTrue();
    assertThat(call.recorder.pendingMessages()).isZero();
  }

  /** Case: Zero length messages arrive as messages. */
  @Test
  protected void zeroLengthMessagesArriveAsMessages() throws Exception {
    Started server = startServer();
    Call call = newCall(connectReady(server), headers("Unary", server).build());
    call.stream.request(1);
    call.stream.writeMessage(ByteBuffer.allocate(0));
    call.stream.halfClose();
    ServerStreamRecorder s = acceptStream(server);
    s.stream.request(1);
    ByteBuffer in = s.nextMessage(timeout());
    assertThat(in).isNotNull();
    assertThat(in.remaining()).isZero();
    s.stream.writeHeaders(new Metadata());
    s.stream.writeMessage(ByteBuffer.allocate(0));
    s.stream.close(Status.OK, new Metadata());
    ByteBuffer out = call.recorder.nextMessage(timeout());
    assertThat(out).isNotNull();
    assertThat(out.remaining()).isZero();
    await(call.recorder.closed, "onClose");
  }

  /** Case: Request headers arrive intact. */
  @Test
  protected void requestHeadersArriveIntact() throws Exception {
    Started server = startServer();
    Metadata md = new Metadata();
    md.put(ASCII_KEY, "value with spaces");
    md.put(BINARY_KEY, BINARY);
    Deadline deadline = Deadline.after(30, TimeUnit.SECONDS);
    RequestHeaders h = headers("Headers", server).metadata(md).deadline(deadline).build();
    Call call = newCall(connectReady(server), h);
    call.stream.halfClose();
    ServerStreamRecorder s = acceptStream(server);
    assertThat(s.headers.fullMethodName()).isEqualTo("conformance.Test/Headers");
    assertThat(s.headers.metadata().get(ASCII_KEY)).isEqualTo("value with spaces");
    assertThat(s.headers.metadata().get(BINARY_KEY)).containsExactly(BINARY);
    assertThat(s.headers.deadline()).as("deadline carried").isNotNull();
    long remaining = s.headers.deadline().timeRemaining(TimeUnit.MILLISECONDS);
    assertThat(remaining).isBetween(20_000L, 30_000L);
    s.stream.close(Status.OK, new Metadata());
    await(call.recorder.closed, "onClose");
  }

  /** Case: Metadata crosses both ways including trailers. */
  @Test
  protected void metadataCrossesBothWaysIncludingTrailers() throws Exception {
    Started server = startServer();
    Call call = newCall(connectReady(server), headers("Metadata", server).build());
    call.stream.request(1);
    call.stream.halfClose();
    ServerStreamRecorder s = acceptStream(server);
    Metadata responseHeaders = new Metadata();
    responseHeaders.put(ASCII_KEY, "in headers");
    responseHeaders.put(BINARY_KEY, BINARY);
    s.stream.writeHeaders(responseHeaders);
    s.stream.writeMessage(utf8("body"));
    Metadata trailers = new Metadata();
    trailers.put(ASCII_KEY, "in trailers");
    trailers.put(BINARY_KEY, new byte[] {9, 8, 7, 0});
    s.stream.close(Status.OK, trailers);
    Metadata got = await(call.recorder.headers, "response headers");
    assertThat(got.get(ASCII_KEY)).isEqualTo("in headers");
    assertThat(got.get(BINARY_KEY)).containsExactly(BINARY);
    ClientStreamRecorder.Closed closed = await(call.recorder.closed, "onClose");
    assertThat(closed.trailers.get(ASCII_KEY)).isEqualTo("in trailers");
    assertThat(closed.trailers.get(BINARY_KEY)).containsExactly(9, 8, 7, 0);
  }

  /** Case: Status code and unicode message reach the client. */
  @Test
  protected void statusCodeAndUnicodeMessageReachTheClient() throws Exception {
    Started server = startServer();
    Call call = newCall(connectReady(server), headers("Status", server).build());
    call.stream.halfClose();
    ServerStreamRecorder s = acceptStream(server);
    String message = "\t\ntest with whitespace\r\nand Unicode BMP \u263A and non-BMP \uD83D\uDE08\t\n";
    s.stream.close(Status.UNKNOWN.withDescription(message), new Metadata());
    ClientStreamRecorder.Closed closed = await(call.recorder.closed, "onClose");
    assertThat(closed.status.getCode()).isEqualTo(Status.Code.UNKNOWN);
    assertThat(closed.status.getDescription()).isEqualTo(message);
  }

  /** Case: Error without headers or messages is a trailers only response. */
  @Test
  protected void errorWithoutHeadersOrMessagesIsATrailersOnlyResponse() throws Exception {
    Started server = startServer();
    Call call = newCall(connectReady(server), headers("TrailersOnly", server).build());
    call.stream.request(1);
    call.stream.halfClose();
    ServerStreamRecorder s = acceptStream(server);
    Metadata trailers = new Metadata();
    trailers.put(ASCII_KEY, "only");
    s.stream.close(Status.PERMISSION_DENIED.withDescription("no"), trailers);
    ClientStreamRecorder.Closed closed = await(call.recorder.closed, "onClose");
    assertThat(closed.status.getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
    assertThat(closed.trailers.get(ASCII_KEY)).isEqualTo("only");
    assertThat(call.recorder.pendingMessages()).isZero();
  }

  /** Case: Large messages above the window cross both ways. */
  @Test
  protected void largeMessagesAboveTheWindowCrossBothWays() throws Exception {
    int size = 3 * 1024 * 1024;
    Started server = startServer();
    Call call = newCall(connectReady(server), headers("Large", server).build());
    call.stream.request(1);
    call.stream.writeMessage(pattern(size, 1));
    call.stream.halfClose();
    ServerStreamRecorder s = acceptStream(server);
    s.stream.request(1);
    ByteBuffer in = s.nextMessage(timeout());
    assertThat(in).isNotNull();
    assertThat(in.remaining()).isEqualTo(size);
    assertThat(in.equals(pattern(size, 1))).as("3 MiB request arrived intact").isTrue();
    s.stream.writeHeaders(new Metadata());
    s.stream.writeMessage(pattern(size, 2));
    s.stream.close(Status.OK, new Metadata());
    ByteBuffer out = call.recorder.nextMessage(timeout());
    assertThat(out).isNotNull();
    assertThat(out.remaining()).isEqualTo(size);
    assertThat(out.equals(pattern(size, 2))).as("3 MiB response arrived intact").isTrue();
    assertThat(await(call.recorder.closed, "onClose").status.isOk()).isTrue();
  }

  /** Case: Messages written after half close are dropped. */
  @Test
  protected void messagesWrittenAfterHalfCloseAreDropped() throws Exception {
    Started server = startServer();
    Call call = newCall(connectReady(server), headers("AfterHalfClose", server).build());
    call.stream.writeMessage(utf8("kept"));
    call.stream.halfClose();
    call.stream.writeMessage(utf8("dropped"));
    ServerStreamRecorder s = acceptStream(server);
    s.stream.request(2);
    assertThat(utf8(s.nextMessage(timeout()))).isEqualTo("kept");
    await(s.halfClosed, "onHalfClose");
    assertThat(s.nextMessage(quietPeriod())).isNull();
    s.stream.close(Status.OK, new Metadata());
    await(call.recorder.closed, "onClose");
  }
}
