package dev.tern.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.spi.TransportOptions;
import io.grpc.Metadata;
import io.grpc.Status;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * Cases on what status a client sees: exactly the code, description and trailers the server gave,
 * and for faults the transport itself finds, the status grpc-java 1.85 gives for the same fault,
 * so that a call fails alike on every transport.
 */
public abstract class StatusCases extends ServerCases {
  /** A description with a non-ASCII character, a percent sign and a line break. */
  protected static final String AWKWARD_DESCRIPTION = "field 'na\u00efve' must be < 100% \u2014 got\n101%";
  /** A binary trailer key of the suite's own. */
  protected static final Metadata.Key<byte[]> BINARY_KEY =
      Metadata.Key.of("conformance-detail-bin", Metadata.BINARY_BYTE_MARSHALLER);
  /** gRPC's rich error details: a serialised {@code google.rpc.Status}. */
  protected static final Metadata.Key<byte[]> STATUS_DETAILS_KEY =
      Metadata.Key.of("grpc-status-details-bin", Metadata.BINARY_BYTE_MARSHALLER);
  /** A server limit the gzip-bomb cases stay under on the wire and far exceed decompressed. */
  private static final int SMALL_LIMIT = 64 * 1024;
  /** A message of zeros: about 2 KiB gzipped, 32 times the small limit decompressed. */
  private static final int BOMB_BYTES = 2 * 1024 * 1024;

  /** Case: a server's cancel with a status after a message reaches the client as that status. */
  @Test
  protected void serverCancelAfterAMessageReachesTheClientAsItsExactStatus() throws Exception {
    Started server = startServer();
    Call call = newCall(connectReady(server), headers("CancelExact", server).build());
    call.stream.request(2);
    call.stream.writeMessage(utf8("hi"));
    call.stream.flush();
    ServerStreamRecorder s = acceptStream(server);
    s.stream.writeHeaders(new Metadata());
    s.stream.writeMessage(utf8("partial"));
    s.stream.flush();
    assertThat(utf8(call.recorder.nextMessage(timeout()))).isEqualTo("partial");
    Status sent = Status.INVALID_ARGUMENT.withDescription(AWKWARD_DESCRIPTION);
    s.stream.cancel(sent);
    ClientStreamRecorder.Closed closed = await(call.recorder.closed, "client onClose after the server's cancel");
    assertThat(closed.status.getCode()).as("client status %s", closed.status).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(closed.status.getDescription()).isEqualTo(AWKWARD_DESCRIPTION);
    assertThat(await(s.cancelled, "server onCancel")).as("the server's own view").isSameAs(sent);
  }

  /** Case: a server's cancel before any response headers reaches the client as its status. */
  @Test
  protected void serverCancelBeforeHeadersReachesTheClientAsItsExactStatus() throws Exception {
    Started server = startServer();
    Call call = newCall(connectReady(server), headers("CancelEarly", server).build());
    call.stream.request(1);
    call.stream.writeMessage(utf8("hi"));
    call.stream.halfClose();
    ServerStreamRecorder s = acceptStream(server);
    s.stream.cancel(Status.PERMISSION_DENIED.withDescription("not for you"));
    ClientStreamRecorder.Closed closed = await(call.recorder.closed, "client onClose");
    assertThat(closed.status.getCode()).as("client status %s", closed.status).isEqualTo(Status.Code.PERMISSION_DENIED);
    assertThat(closed.status.getDescription()).isEqualTo("not for you");
    assertThat(call.recorder.pendingMessages()).isZero();
    await(s.cancelled, "server onCancel");
  }

  /**
   * Case: trailers reach the client exactly, rich error details ({@code grpc-status-details-bin})
   * and other binary and ASCII keys included, with several values of one key in order.
   */
  @Test
  protected void trailersAndRichErrorDetailsReachTheClientExactly() throws Exception {
    Started server = startServer();
    Call call = newCall(connectReady(server), headers("RichError", server).build());
    call.stream.request(1);
    call.stream.halfClose();
    ServerStreamRecorder s = acceptStream(server);
    byte[] details = RichErrors.details("conformance", AWKWARD_DESCRIPTION);
    Metadata trailers = new Metadata();
    trailers.put(STATUS_DETAILS_KEY, details);
    trailers.put(BINARY_KEY, new byte[] {0, (byte) 0xff, '\r', '\n', ','});
    trailers.put(BINARY_KEY, new byte[0]);
    trailers.put(StreamingCases.ASCII_KEY, "one, two");
    s.stream.close(Status.FAILED_PRECONDITION.withDescription(AWKWARD_DESCRIPTION), trailers);
    ClientStreamRecorder.Closed closed = await(call.recorder.closed, "client onClose");
    assertThat(closed.status.getCode()).as("client status %s", closed.status).isEqualTo(Status.Code.FAILED_PRECONDITION);
    assertThat(closed.status.getDescription()).isEqualTo(AWKWARD_DESCRIPTION);
    assertThat(closed.trailers.get(STATUS_DETAILS_KEY)).as("grpc-status-details-bin").isEqualTo(details);
    assertThat(RichErrors.parse(closed.trailers.get(STATUS_DETAILS_KEY))).isEqualTo(RichErrors.parse(details));
    assertThat(closed.trailers.getAll(BINARY_KEY)).as("binary trailer values in order")
        .containsExactly(new byte[] {0, (byte) 0xff, '\r', '\n', ','}, new byte[0]);
    assertThat(closed.trailers.get(StreamingCases.ASCII_KEY)).isEqualTo("one, two");
    assertThat(closed.trailers.containsKey(Metadata.Key.of("grpc-status", Metadata.ASCII_STRING_MARSHALLER)))
        .as("grpc-status left in the application's trailers").isFalse();
    await(s.completed, "server onComplete");
  }

  /**
   * Case: a request whose wire size exceeds the server's limit fails as grpc-java's deframer
   * fails it: RESOURCE_EXHAUSTED "gRPC message exceeds maximum size LIMIT: SIZE".
   */
  @Test
  protected void requestOverTheServersLimitFailsWithGrpcJavasStatus() throws Exception {
    Started server = startServer(serverOptions().with(TransportOptions.MAX_INBOUND_MESSAGE_SIZE, 1024));
    Call call = newCall(connectReady(server), headers("TooBig", server).build());
    call.stream.request(1);
    call.stream.writeMessage(pattern(4096, 3));
    call.stream.halfClose();
    ServerStreamRecorder s = acceptStream(server);
    s.stream.request(1);
    ClientStreamRecorder.Closed closed = await(call.recorder.closed, "onClose");
    assertThat(closed.status.getCode()).as("client status %s", closed.status).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(closed.status.getDescription()).isEqualTo("gRPC message exceeds maximum size 1024: 4096");
  }

  /**
   * Case: a request that is small on the wire but decompresses beyond the server's limit (a gzip
   * bomb) fails as grpc-java fails it: its server finds the size while the request is parsed and
   * ends the call with UNKNOWN "Application error processing RPC".
   */
  @Test
  protected void gzipBombRequestFailsWithGrpcJavasStatus() throws Exception {
    Started server = startServer(serverOptions().with(TransportOptions.MAX_INBOUND_MESSAGE_SIZE, SMALL_LIMIT));
    Call call = newCall(connectReady(server), headers("GzipBomb", server).messageEncoding("gzip").build());
    call.stream.request(1);
    call.stream.writeMessage(ByteBuffer.allocate(BOMB_BYTES));
    call.stream.halfClose();
    ServerStreamRecorder s = acceptStream(server);
    s.stream.request(1);
    ClientStreamRecorder.Closed closed = await(call.recorder.closed, "onClose");
    assertThat(closed.status.getCode()).as("client status %s", closed.status).isEqualTo(Status.Code.UNKNOWN);
    assertThat(closed.status.getDescription()).isEqualTo("Application error processing RPC");
    assertThat(s.nextMessage(quietPeriod())).as("the bomb delivered to the server").isNull();
  }

  /**
   * Case: a response that decompresses beyond the client's limit fails as grpc-java's client fails
   * it: the client cancels the call with CANCELLED "Failed to read message.", and the server hears
   * the cancel.
   */
  @Test
  protected void gzipBombResponseFailsWithGrpcJavasStatus() throws Exception {
    Started server = startServer();
    Connected client = connect(server.address(), clientOptions().with(TransportOptions.MAX_INBOUND_MESSAGE_SIZE, SMALL_LIMIT));
    await(client.recorder.ready, "transportReady");
    Call call = newCall(client, headers("GzipBombBack", server).build());
    call.stream.request(1);
    call.stream.writeMessage(utf8("go"));
    call.stream.flush();
    ServerStreamRecorder s = acceptStream(server);
    s.stream.setMessageCompression("gzip");
    s.stream.writeHeaders(new Metadata());
    s.stream.writeMessage(ByteBuffer.allocate(BOMB_BYTES));
    s.stream.flush();
    ClientStreamRecorder.Closed closed = await(call.recorder.closed, "onClose");
    assertThat(closed.status.getCode()).as("client status %s", closed.status).isEqualTo(Status.Code.CANCELLED);
    assertThat(closed.status.getDescription()).isEqualTo("Failed to read message.");
    assertThat(call.recorder.pendingMessages()).as("the bomb delivered to the client").isZero();
    assertThat(await(s.cancelled, "server onCancel after the client gave up").getCode())
        .isEqualTo(Status.Code.CANCELLED);
  }
}
