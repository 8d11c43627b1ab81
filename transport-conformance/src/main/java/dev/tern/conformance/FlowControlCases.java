package dev.tern.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Metadata;
import io.grpc.Status;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * Flow-control cases: a receiver gets no more messages than it asked for, and a sender that
 * outruns the {@link #WINDOW} (65,535 + 1,000 bytes: not a power of two) sees {@code isReady()}
 * turn false and hears {@code onReady()} once the receiver catches up.
 */
public abstract class FlowControlCases extends CancellationCases {
  private static final int CHUNK = 16 * 1024;
  /** Writing this much without isReady() turning false means the transport buffers without bound. */
  private static final int MAX_MESSAGES_BEFORE_PUSH_BACK = 512;

  /** Case: Receiver gets exactly as many messages as it requested. */
  @Test
  protected void receiverGetsExactlyAsManyMessagesAsItRequested() throws Exception {
    Started server = startServer();
    Call call = newCall(connectReady(server), headers("RequestN", server).build());
    for (int i = 0; i < 10; i++) {
      call.stream.writeMessage(utf8("m" + i));
    }
    call.stream.halfClose();
    ServerStreamRecorder s = acceptStream(server);
    s.stream.request(3);
    for (int i = 0; i < 3; i++) {
      assertThat(s.nextMessage(timeout())).as("requested message %d", i).isNotNull();
    }
    assertThat(s.nextMessage(quietPeriod())).as("a fourth message after request(3)").isNull();
    assertThat(s.halfClosed.isDone()).as("half-close before the messages were taken").isFalse();
    s.stream.request(7);
    for (int i = 3; i < 10; i++) {
      ByteBuffer m = s.nextMessage(timeout());
      assertThat(m).as("message %d", i).isNotNull();
      assertThat(utf8(m)).isEqualTo("m" + i);
    }
    await(s.halfClosed, "onHalfClose");
    s.stream.close(Status.OK, new Metadata());
    await(call.recorder.closed, "onClose");
  }

  /** Case: Client sender is pushed back by the servers window. */
  @Test
  protected void clientSenderIsPushedBackByTheServersWindow() throws Exception {
    Started server = startServer();
    Call call = newCall(connectReady(server), headers("PushBackUp", server).build());
    call.stream.request(1);
    int written = 0;
    while (call.stream.isReady() && written < MAX_MESSAGES_BEFORE_PUSH_BACK) {
      call.stream.writeMessage(pattern(CHUNK, written));
      call.stream.flush();
      written++;
    }
    assertThat(call.stream.isReady())
        .as("client isReady() after writing %d messages of %d bytes into a %d-byte window", written, CHUNK, WINDOW)
        .isFalse();
    ServerStreamRecorder s = acceptStream(server);
    s.stream.request(1);
    ByteBuffer first = s.nextMessage(timeout());
    assertThat(first).isNotNull();
    assertThat(first.equals(pattern(CHUNK, 0))).isTrue();
    assertThat(s.nextMessage(quietPeriod())).as("a message the server did not request").isNull();
    s.stream.request(written - 1);
    for (int i = 1; i < written; i++) {
      ByteBuffer m = s.nextMessage(timeout());
      assertThat(m).as("message %d of %d", i, written).isNotNull();
      assertThat(m.equals(pattern(CHUNK, i))).as("message %d intact", i).isTrue();
    }
    assertThat(call.recorder.awaitReady(timeout())).as("client onReady after the server drained").isTrue();
    assertThat(call.stream.isReady()).isTrue();
    call.stream.halfClose();
    await(s.halfClosed, "onHalfClose");
    s.stream.close(Status.OK, new Metadata());
    await(call.recorder.closed, "onClose");
  }

  /** Case: Server sender is pushed back by the clients window. */
  @Test
  protected void serverSenderIsPushedBackByTheClientsWindow() throws Exception {
    Started server = startServer();
    Call call = newCall(connectReady(server), headers("PushBackDown", server).build());
    call.stream.request(1);
    call.stream.halfClose();
    ServerStreamRecorder s = acceptStream(server);
    s.stream.writeHeaders(new Metadata());
    int written = 0;
    while (s.stream.isReady() && written < MAX_MESSAGES_BEFORE_PUSH_BACK) {
      s.stream.writeMessage(pattern(CHUNK, written));
      s.stream.flush();
      written++;
    }
    assertThat(s.stream.isReady())
        .as("server isReady() after writing %d messages of %d bytes into a %d-byte window", written, CHUNK, WINDOW)
        .isFalse();
    ByteBuffer first = call.recorder.nextMessage(timeout());
    assertThat(first).isNotNull();
    assertThat(call.recorder.nextMessage(quietPeriod())).as("a message the client did not request").isNull();
    // A transport may push back before the window is full (a loaded machine's QUIC stream did after
    // one message): the client then has nothing more to ask for, and asking for 0 is illegal.
    if (written > 1) {
      call.stream.request(written - 1);
    }
    for (int i = 1; i < written; i++) {
      ByteBuffer m = call.recorder.nextMessage(timeout());
      assertThat(m).as("message %d of %d", i, written).isNotNull();
      assertThat(m.equals(pattern(CHUNK, i))).as("message %d intact", i).isTrue();
    }
    assertThat(s.awaitReady(timeout())).as("server onReady after the client drained").isTrue();
    s.stream.close(Status.OK, new Metadata());
    assertThat(await(call.recorder.closed, "onClose").status.isOk()).isTrue();
  }

  /**
   * Case: a new server stream with room to write says so with one {@code onReady} once its listener
   * is in place, as grpc-java's transports do; a server that writes only from its on-ready handler
   * ({@code ServerCallStreamObserver.setOnReadyHandler}, the usual way to honour flow control) sends
   * nothing otherwise.
   */
  @Test
  protected void aNewServerStreamHearsOnReadyOnce() throws Exception {
    Started server = startServer();
    Call call = newCall(connectReady(server), headers("ReadyAtStart", server).build());
    call.stream.request(1);
    call.stream.halfClose();
    ServerStreamRecorder s = acceptStream(server);
    assertThat(s.awaitReady(timeout())).as("server onReady for a new stream with room to write").isTrue();
    assertThat(s.stream.isReady()).isTrue();
    s.stream.writeHeaders(new Metadata());
    s.stream.close(Status.OK, new Metadata());
    assertThat(await(call.recorder.closed, "onClose").status.isOk()).isTrue();
    assertThat(s.awaitReady(quietPeriod())).as("a second onReady with nothing written").isFalse();
  }
}
