package dev.tern.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.ConnectionInfo;
import dev.tern.rpc.Priority;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.Metadata;
import io.grpc.Status;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Cases on server shutdown, concurrency, compression, size limits and call attributes. */
public abstract class ServerCases extends FlowControlCases {

  /** Case: Graceful shutdown lets running calls finish and refuses new ones. */
  @Test
  protected void gracefulShutdownLetsRunningCallsFinishAndRefusesNewOnes() throws Exception {
    Started server = startServer();
    Connected client = connectReady(server);
    Call running = newCall(client, headers("Running", server).build());
    running.stream.request(1);
    running.stream.writeMessage(utf8("in flight"));
    running.stream.halfClose();
    ServerStreamRecorder s = acceptStream(server);
    server.transport.shutdown();
    Call late = newCall(client, headers("Late", server).build());
    ClientStreamRecorder.Closed refused = await(late.recorder.closed, "onClose of a call started after shutdown");
    assertThat(refused.status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(server.recorder.nextStream(quietPeriod())).as("a stream accepted after shutdown").isNull();
    assertThat(server.recorder.terminated.isDone()).as("terminated while a call runs").isFalse();
    s.stream.request(1);
    assertThat(utf8(s.nextMessage(timeout()))).isEqualTo("in flight");
    s.stream.writeHeaders(new Metadata());
    s.stream.writeMessage(utf8("finished"));
    s.stream.close(Status.OK, new Metadata());
    assertThat(utf8(running.recorder.nextMessage(timeout()))).isEqualTo("finished");
    assertThat(await(running.recorder.closed, "onClose of the running call").status.isOk()).isTrue();
    await(server.recorder.terminated, "serverTerminated after the last call");
  }

  /** Case: Shutdown now cancels running calls. */
  @Test
  protected void shutdownNowCancelsRunningCalls() throws Exception {
    Started server = startServer();
    Call call = newCall(connectReady(server), headers("Doomed", server).build());
    call.stream.request(1);
    call.stream.writeMessage(utf8("x"));
    ServerStreamRecorder s = acceptStream(server);
    server.transport.shutdownNow(Status.UNAVAILABLE.withDescription("server stopping now"));
    assertThat(await(call.recorder.closed, "client onClose").status.isOk()).isFalse();
    await(s.cancelled, "server onCancel");
    await(server.recorder.terminated, "serverTerminated");
  }

  /** Case: Many concurrent calls all complete. */
  @Test
  protected void manyConcurrentCallsAllComplete() throws Exception {
    Started server = startServer();
    server.recorder.echoMode();
    Connected client = connectReady(server);
    List<Call> calls = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      Call c = newCall(client, headers("Echo", server).build());
      c.stream.request(1);
      c.stream.writeMessage(utf8("call-" + i));
      c.stream.halfClose();
      calls.add(c);
    }
    for (int i = 0; i < calls.size(); i++) {
      Call c = calls.get(i);
      ByteBuffer m = c.recorder.nextMessage(timeout());
      assertThat(m).as("answer to call %d", i).isNotNull();
      assertThat(utf8(m)).isEqualTo("call-" + i);
      assertThat(await(c.recorder.closed, "onClose of call " + i).status.isOk()).isTrue();
    }
  }

  /** Case: Gzip compressed messages round trip. */
  @Test
  protected void gzipCompressedMessagesRoundTrip() throws Exception {
    Started server = startServer();
    Connected client = connectReady(server);
    byte[] text = "the quick brown fox jumps over the lazy dog. ".repeat(2500).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    long sentBefore = client.transport.connectionInfo().bytesSent();
    Call call = newCall(client, headers("Gzip", server).messageEncoding("gzip").build());
    call.stream.request(1);
    call.stream.writeMessage(ByteBuffer.wrap(text.clone()));
    call.stream.halfClose();
    ServerStreamRecorder s = acceptStream(server);
    assertThat(s.headers.messageEncoding()).isEqualTo("gzip");
    s.stream.request(1);
    ByteBuffer in = s.nextMessage(timeout());
    assertThat(in).isNotNull();
    assertThat(in.equals(ByteBuffer.wrap(text))).as("request intact after gzip").isTrue();
    s.stream.setMessageCompression("gzip");
    s.stream.writeHeaders(new Metadata());
    s.stream.writeMessage(ByteBuffer.wrap(text.clone()));
    s.stream.close(Status.OK, new Metadata());
    ByteBuffer out = call.recorder.nextMessage(timeout());
    assertThat(out).isNotNull();
    assertThat(out.equals(ByteBuffer.wrap(text))).as("response intact after gzip").isTrue();
    await(call.recorder.closed, "onClose");
    ConnectionInfo after = client.transport.connectionInfo();
    if (sentBefore >= 0 && after.bytesSent() >= 0) {
      assertThat(after.bytesSent() - sentBefore).as("bytes sent for a %d-byte compressible message", text.length)
          .isLessThan(text.length / 4);
    }
  }

  /** Case: Requests over the servers limit fail with resource exhausted. */
  @Test
  protected void requestsOverTheServersLimitFailWithResourceExhausted() throws Exception {
    Started server = startServer(serverOptions().with(TransportOptions.MAX_INBOUND_MESSAGE_SIZE, 1024));
    Call call = newCall(connectReady(server), headers("TooBig", server).build());
    call.stream.request(1);
    call.stream.writeMessage(pattern(4096, 3));
    call.stream.halfClose();
    ServerStreamRecorder s = server.recorder.nextStream(timeout());
    if (s != null) {
      s.stream.request(1);
    }
    ClientStreamRecorder.Closed closed = await(call.recorder.closed, "onClose");
    assertThat(closed.status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(closed.status.getDescription()).isNotBlank();
    if (s != null) {
      assertThat(s.nextMessage(quietPeriod())).as("the oversized message delivered").isNull();
    }
  }

  /** Case: Responses over the clients limit fail with resource exhausted. */
  @Test
  protected void responsesOverTheClientsLimitFailWithResourceExhausted() throws Exception {
    Started server = startServer();
    Connected client = connect(server.address(), clientOptions().with(TransportOptions.MAX_INBOUND_MESSAGE_SIZE, 1024));
    await(client.recorder.ready, "transportReady");
    Call call = newCall(client, headers("TooBigBack", server).build());
    call.stream.request(1);
    call.stream.halfClose();
    ServerStreamRecorder s = acceptStream(server);
    s.stream.writeHeaders(new Metadata());
    s.stream.writeMessage(pattern(4096, 4));
    s.stream.close(Status.OK, new Metadata());
    ClientStreamRecorder.Closed closed = await(call.recorder.closed, "onClose");
    assertThat(closed.status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(call.recorder.pendingMessages()).as("the oversized message delivered").isZero();
  }

  /** Case: Priority and early data flag are carried or harmless. */
  @Test
  protected void priorityAndEarlyDataFlagAreCarriedOrHarmless() throws Exception {
    Started server = startServer();
    server.recorder.echoMode();
    Connected client = connectReady(server);
    Priority[] priorities = {Priority.of(0, false), Priority.of(7, true), Priority.of(1, true)};
    for (Priority p : priorities) {
      Call call = newCall(client, headers("Echo", server).priority(p).earlyDataAllowed(p.urgency() != 7)
          .idempotent(true).build());
      call.stream.request(1);
      call.stream.writeMessage(utf8(p.toString()));
      call.stream.halfClose();
      assertThat(utf8(call.recorder.nextMessage(timeout()))).isEqualTo(p.toString());
      assertThat(await(call.recorder.closed, "onClose").status.isOk()).isTrue();
    }
    Started recording = startServer();
    Call call = newCall(connectReady(recording), headers("Flags", recording).priority(Priority.of(1, true))
        .earlyDataAllowed(true).idempotent(true).build());
    call.stream.halfClose();
    ServerStreamRecorder s = acceptStream(recording);
    if (carriesPriority()) {
      assertThat(s.headers.priority()).isEqualTo(Priority.of(1, true));
    }
    if (carriesEarlyDataFlag()) {
      assertThat(s.headers.earlyDataAllowed()).isTrue();
    }
    s.stream.close(Status.OK, new Metadata());
    await(call.recorder.closed, "onClose");
  }
}
