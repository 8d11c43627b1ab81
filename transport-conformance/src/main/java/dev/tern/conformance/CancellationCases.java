package dev.tern.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Deadline;
import io.grpc.Metadata;
import io.grpc.Status;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Cases on ending a stream early, from either side. */
public abstract class CancellationCases extends StreamingCases {

  /** Case: Client cancel reaches the server. */
  @Test
  protected void clientCancelReachesTheServer() throws Exception {
    Started server = startServer();
    Call call = newCall(connectReady(server), headers("Cancel", server).build());
    call.stream.request(1);
    call.stream.writeMessage(utf8("first"));
    ServerStreamRecorder s = acceptStream(server);
    s.stream.request(1);
    assertThat(s.nextMessage(timeout())).isNotNull();
    call.stream.cancel(Status.CANCELLED.withDescription("user gave up"));
    ClientStreamRecorder.Closed closed = await(call.recorder.closed, "client onClose after cancel");
    assertThat(closed.status.getCode()).isEqualTo(Status.Code.CANCELLED);
    Status serverSaw = await(s.cancelled, "server onCancel after the client cancelled");
    assertThat(serverSaw.isOk()).isFalse();
    call.stream.cancel(Status.CANCELLED);
    assertThat(call.recorder.nextMessage(quietPeriod())).as("messages after the cancel").isNull();
  }

  /** Case: Server cancel reaches the client. */
  @Test
  protected void serverCancelReachesTheClient() throws Exception {
    Started server = startServer();
    Call call = newCall(connectReady(server), headers("ServerCancel", server).build());
    call.stream.request(1);
    call.stream.writeMessage(utf8("hi"));
    ServerStreamRecorder s = acceptStream(server);
    s.stream.cancel(Status.CANCELLED.withDescription("server aborts"));
    ClientStreamRecorder.Closed closed = await(call.recorder.closed, "client onClose after the server cancelled");
    assertThat(closed.status.isOk()).isFalse();
    await(s.cancelled, "server onCancel");
  }

  /** Case: Deadline expiry cancels on both sides. */
  @Test
  protected void deadlineExpiryCancelsOnBothSides() throws Exception {
    Started server = startServer();
    Deadline deadline = Deadline.after(300, TimeUnit.MILLISECONDS);
    Call call = newCall(connectReady(server), headers("Deadline", server).deadline(deadline).build());
    call.stream.request(1);
    call.stream.writeMessage(utf8("slow"));
    call.stream.halfClose();
    ServerStreamRecorder s = acceptStream(server);
    assertThat(s.headers.deadline()).as("deadline propagated to the server").isNotNull();
    assertThat(s.headers.deadline().timeRemaining(TimeUnit.MILLISECONDS)).isLessThanOrEqualTo(300);
    // The call layer cancels the stream when the deadline passes; the transport carries it over.
    CompletableFuture.delayedExecutor(deadline.timeRemaining(TimeUnit.NANOSECONDS), TimeUnit.NANOSECONDS)
        .execute(() -> call.stream.cancel(Status.DEADLINE_EXCEEDED.withDescription("deadline passed")));
    ClientStreamRecorder.Closed closed = await(call.recorder.closed, "client onClose");
    assertThat(closed.status.getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertThat(deadline.isExpired()).isTrue();
    Status serverSaw = await(s.cancelled, "server onCancel after the deadline");
    assertThat(serverSaw.isOk()).isFalse();
  }

  /** Case: Cancelling a closed stream changes nothing. */
  @Test
  protected void cancellingAClosedStreamChangesNothing() throws Exception {
    Started server = startServer();
    Call call = newCall(connectReady(server), headers("LateCancel", server).build());
    call.stream.request(1);
    call.stream.halfClose();
    ServerStreamRecorder s = acceptStream(server);
    s.stream.writeHeaders(new Metadata());
    s.stream.writeMessage(utf8("done"));
    s.stream.close(Status.OK, new Metadata());
    ClientStreamRecorder.Closed closed = await(call.recorder.closed, "onClose");
    assertThat(closed.status.isOk()).isTrue();
    call.stream.cancel(Status.CANCELLED);
    call.stream.cancel(Status.CANCELLED);
    await(s.completed, "server onComplete");
  }

  /** Case: Client shutdown now cancels open streams. */
  @Test
  protected void clientShutdownNowCancelsOpenStreams() throws Exception {
    Started server = startServer();
    Connected client = connectReady(server);
    Call call = newCall(client, headers("ShutdownNow", server).build());
    call.stream.writeMessage(utf8("x"));
    ServerStreamRecorder s = acceptStream(server);
    client.transport.shutdownNow(Status.UNAVAILABLE.withDescription("client going away"));
    assertThat(await(call.recorder.closed, "client onClose").status.isOk()).isFalse();
    await(s.cancelled, "server onCancel");
    await(client.recorder.terminated, "transportTerminated");
  }
}
