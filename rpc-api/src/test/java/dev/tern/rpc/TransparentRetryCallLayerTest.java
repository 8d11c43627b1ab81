package dev.tern.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.rpc.inprocess.InProcessAddress;
import dev.tern.rpc.inprocess.InProcessTransportProvider;
import dev.tern.rpc.spi.ClientStream;
import dev.tern.rpc.spi.ClientStreamListener;
import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.RequestHeaders;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.CallOptions;
import io.grpc.ClientStreamTracer;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The call layer's transparent retry: a stream the transport reports refused unprocessed
 * ({@link ClientStreamListener#onRefused}) is replayed once on a new stream, with everything the
 * call sent before and after the refusal, in order and exactly once; a second refusal, or one after
 * more than the replay buffer was sent, ends the call with the refusal's status. The transport here
 * is the in-process one, whose first streams are refused from another thread before anything
 * reaches the server, as a draining connection's queued streams are.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TransparentRetryCallLayerTest {
  private final ExecutorService transportThread = Executors.newSingleThreadExecutor();
  private final AtomicInteger serverCalls = new AtomicInteger();
  private final List<Server> servers = new ArrayList<>();
  private final List<ManagedChannel> channels = new ArrayList<>();

  /** The in-process transport, whose streams {@link #newStream} may replace. */
  private abstract static class WrappingProvider extends InProcessTransportProvider {
    /** A stream of the wrapped transport ({@code inner}) or one of the test's own. */
    abstract ClientStream newStream(ClientTransport inner, RequestHeaders headers, ClientStreamListener listener);

    @Override
    public ClientTransport newClientTransport(SocketAddress address, String authority, TransportOptions options) {
      ClientTransport inner = super.newClientTransport(address, authority, options);
      return new ClientTransport() {
        @Override public void start(Listener listener) { inner.start(listener); }

        @Override
        public ClientStream newStream(RequestHeaders headers, ClientStreamListener listener) {
          return WrappingProvider.this.newStream(inner, headers, listener);
        }

        @Override public ConnectionInfo connectionInfo() { return inner.connectionInfo(); }

        @Override public void shutdown() { inner.shutdown(); }

        @Override public void shutdownNow(Status status) { inner.shutdownNow(status); }
      };
    }
  }

  /** The in-process transport, whose first {@code refusals} streams are refused unprocessed. */
  private final class RefusingProvider extends WrappingProvider {
    final AtomicInteger refusals;
    final int refuseAfterMessages;
    final boolean inline;

    RefusingProvider(int refusals, int refuseAfterMessages) {
      this(refusals, refuseAfterMessages, false);
    }

    /** {@code inline}: the refusal comes inside the stream call that causes it, not on another thread. */
    RefusingProvider(int refusals, int refuseAfterMessages, boolean inline) {
      this.refusals = new AtomicInteger(refusals);
      this.refuseAfterMessages = refuseAfterMessages;
      this.inline = inline;
    }

    @Override
    public String name() {
      return "refusing";
    }

    @Override
    ClientStream newStream(ClientTransport inner, RequestHeaders headers, ClientStreamListener listener) {
      if (refusals.getAndDecrement() <= 0) {
        return inner.newStream(headers, listener);
      }
      return new RefusedStream(listener, refuseAfterMessages, inline);
    }
  }

  /**
   * The in-process transport, whose first {@code notSent} streams report inside {@code newStream}
   * that they never left the client, as a transport shut down a moment before does.
   */
  private static final class NotSendingProvider extends WrappingProvider {
    final AtomicInteger notSent;

    NotSendingProvider(int notSent) {
      this.notSent = new AtomicInteger(notSent);
    }

    @Override
    public String name() {
      return "not-sending";
    }

    @Override
    ClientStream newStream(ClientTransport inner, RequestHeaders headers, ClientStreamListener listener) {
      if (notSent.getAndDecrement() <= 0) {
        return inner.newStream(headers, listener);
      }
      listener.onNotSent(Status.UNAVAILABLE.withDescription("the test transport is shut down; not sent"));
      return new ClientStream() {
        @Override public void writeMessage(ByteBuffer message) {}

        @Override public void flush() {}

        @Override public void request(int numMessages) {}

        @Override public void halfClose() {}

        @Override public void cancel(Status status) {}

        @Override public boolean isReady() { return false; }
      };
    }
  }

  /** Swallows what it is given and, after that many messages or at the half-close, is refused. */
  private final class RefusedStream implements ClientStream {
    private final ClientStreamListener listener;
    private final int refuseAfterMessages;
    private final boolean inline;
    private int messages;
    private boolean refused;

    RefusedStream(ClientStreamListener listener, int refuseAfterMessages, boolean inline) {
      this.listener = listener;
      this.refuseAfterMessages = refuseAfterMessages;
      this.inline = inline;
    }

    private synchronized void refuse() {
      if (!refused) {
        refused = true;
        Runnable tell = () -> listener.onRefused(
            Status.UNAVAILABLE.withDescription("refused by the test transport; not processed"));
        if (inline) {
          tell.run();
        } else {
          transportThread.execute(tell);
        }
      }
    }

    @Override
    public synchronized void writeMessage(ByteBuffer message) {
      if (++messages >= refuseAfterMessages) {
        refuse();
      }
    }

    @Override public void flush() {}

    @Override public void request(int numMessages) {}

    @Override public void halfClose() { refuse(); }

    @Override public void cancel(Status status) {}

    @Override public boolean isReady() { return true; }
  }

  private ManagedChannel channel(WrappingProvider provider) throws Exception {
    return channel(provider, b -> { });
  }

  private ManagedChannel channel(WrappingProvider provider,
      java.util.function.Consumer<TernChannelBuilder> configure) throws Exception {
    InProcessAddress address = new InProcessAddress("retry-" + UUID.randomUUID());
    ServerInterceptor count = new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata h, ServerCallHandler<Q, R> next) {
        serverCalls.incrementAndGet();
        return next.startCall(call, h);
      }
    };
    servers.add(TernServerBuilder.create().addTransportProvider(provider).listen(provider.name(), address)
        .addService(ServerInterceptors.intercept(TestMethods.service(), count)).build().start());
    TernChannelBuilder b = TernChannelBuilder.forAddress(address).addTransportProvider(provider)
        .transports(provider.name()).usePlaintext();
    configure.accept(b);
    ManagedChannel c = b.build();
    channels.add(c);
    return c;
  }

  @Test
  void aUnaryCallRefusedOnceIsReplayedAndItsSecondAttemptIsATransparentRetry() throws Exception {
    ManagedChannel channel = channel(new RefusingProvider(1, Integer.MAX_VALUE));
    List<ClientStreamTracer.StreamInfo> attempts = new CopyOnWriteArrayList<>();
    ClientStreamTracer.Factory record = new ClientStreamTracer.Factory() {
      @Override
      public ClientStreamTracer newClientStreamTracer(ClientStreamTracer.StreamInfo info, Metadata headers) {
        attempts.add(info);
        return new ClientStreamTracer() {};
      }
    };
    String answer = ClientCalls.blockingUnaryCall(channel, TestMethods.UNARY,
        CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS).withStreamTracerFactory(record), "hello");
    assertThat(answer).isEqualTo("hello");
    assertThat(serverCalls.get()).as("calls the server saw").isEqualTo(1);
    assertThat(attempts).hasSize(2);
    assertThat(attempts.get(0).isTransparentRetry()).isFalse();
    assertThat(attempts.get(1).isTransparentRetry()).isTrue();
    assertThat(attempts.get(1).getPreviousAttempts()).as("grpc-java counts no attempt for it").isZero();
  }

  /**
   * The channel's first call waits for the connection, so its operations are replayed onto the
   * stream when it comes; this transport refuses inside that replay (at the half-close), before
   * the stream is attached. The call is replayed on the next stream all the same.
   */
  @Test
  void aStreamRefusedWhileTheRecordIsReplayedOntoItIsReplayedAgain() throws Exception {
    ManagedChannel channel = channel(new RefusingProvider(1, Integer.MAX_VALUE, true));
    assertThat(ClientCalls.blockingUnaryCall(channel, TestMethods.UNARY,
        CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), "first")).isEqualTo("first");
    assertThat(serverCalls.get()).isEqualTo(1);
  }

  @Test
  void aCallRefusedTwiceEndsWithTheRefusal() throws Exception {
    ManagedChannel channel = channel(new RefusingProvider(2, Integer.MAX_VALUE));
    assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(channel, TestMethods.UNARY,
        CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), "hello"))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
          assertThat(e.getStatus().getDescription()).contains("refused by the test transport");
        });
    assertThat(serverCalls.get()).as("calls the server saw").isZero();
    // The channel itself is fine: the next call goes through.
    assertThat(ClientCalls.blockingUnaryCall(channel, TestMethods.UNARY,
        CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), "again")).isEqualTo("again");
  }

  @Test
  void messagesSentBeforeAndAfterTheRefusalArriveOnceAndInOrder() throws Exception {
    ManagedChannel channel = channel(new RefusingProvider(1, 3));
    List<String> echoed = new CopyOnWriteArrayList<>();
    CompletableFuture<Status> done = new CompletableFuture<>();
    StreamObserver<String> requests = ClientCalls.asyncBidiStreamingCall(
        channel.newCall(TestMethods.BIDI, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS)),
        new StreamObserver<String>() {
          @Override public void onNext(String value) { echoed.add(value); }

          @Override public void onError(Throwable t) { done.complete(Status.fromThrowable(t)); }

          @Override public void onCompleted() { done.complete(Status.OK); }
        });
    List<String> sent = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      sent.add("m" + i);
      requests.onNext("m" + i);
    }
    requests.onCompleted();
    assertThat(done.get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
    assertThat(echoed).isEqualTo(sent);
    assertThat(serverCalls.get()).isEqualTo(1);
  }

  @Test
  void aCallThatSentMoreThanTheReplayBufferIsNotReplayed() throws Exception {
    ManagedChannel channel = channel(new RefusingProvider(1, Integer.MAX_VALUE));
    CompletableFuture<Status> done = new CompletableFuture<>();
    StreamObserver<String> requests = ClientCalls.asyncBidiStreamingCall(
        channel.newCall(TestMethods.BIDI, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS)),
        new StreamObserver<String>() {
          @Override public void onNext(String value) {}

          @Override public void onError(Throwable t) { done.complete(Status.fromThrowable(t)); }

          @Override public void onCompleted() { done.complete(Status.OK); }
        });
    String chunk = "x".repeat(64 * 1024);
    long total = 0;
    while (total <= DelayedClientStream.REPLAY_LIMIT_BYTES) {
      requests.onNext(chunk);
      total += chunk.length();
    }
    requests.onCompleted(); // the refusal comes now, after more than the buffer was sent
    Status status = done.get(10, TimeUnit.SECONDS);
    assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(status.getDescription()).contains("refused by the test transport");
    assertThat(serverCalls.get()).isZero();
  }

  @Test
  void theBuildersBufferLimitsBoundWhatIsReplayed() throws Exception {
    String request = "y".repeat(2_000);
    ManagedChannel perCall = channel(new RefusingProvider(1, Integer.MAX_VALUE), b -> b.perRpcBufferLimit(1_000));
    assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(perCall, TestMethods.UNARY,
        CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), request))
        .as("a call over perRpcBufferLimit").isInstanceOf(StatusRuntimeException.class)
        .hasMessageContaining("refused by the test transport");
    ManagedChannel perChannel = channel(new RefusingProvider(1, Integer.MAX_VALUE), b -> b.retryBufferSize(1_000));
    assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(perChannel, TestMethods.UNARY,
        CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), request))
        .as("a call over the channel's retryBufferSize").isInstanceOf(StatusRuntimeException.class)
        .hasMessageContaining("refused by the test transport");
    ManagedChannel disabled = channel(new RefusingProvider(1, Integer.MAX_VALUE), TernChannelBuilder::disableRetry);
    assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(disabled, TestMethods.UNARY,
        CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), "small"))
        .as("a call on a channel with retry disabled").isInstanceOf(StatusRuntimeException.class)
        .hasMessageContaining("refused by the test transport");
    assertThat(serverCalls.get()).isZero();
    // Within both limits, the same size is replayed.
    ManagedChannel within = channel(new RefusingProvider(1, Integer.MAX_VALUE), b -> b.perRpcBufferLimit(4_000));
    assertThat(ClientCalls.blockingUnaryCall(within, TestMethods.UNARY,
        CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), request)).isEqualTo(request);
  }

  /**
   * A stream that never left the client (grpc-java's MISCARRIED) does not use up the one replay a
   * refusal gets: the call is sent again each time, here 50 times, then once by the server.
   */
  @Test
  void aCallWhoseStreamWasNeverSentIsReplayedEachTime() throws Exception {
    NotSendingProvider provider = new NotSendingProvider(50);
    ManagedChannel channel = channel(provider);
    List<ClientStreamTracer.StreamInfo> attempts = new CopyOnWriteArrayList<>();
    ClientStreamTracer.Factory record = new ClientStreamTracer.Factory() {
      @Override
      public ClientStreamTracer newClientStreamTracer(ClientStreamTracer.StreamInfo info, Metadata headers) {
        attempts.add(info);
        return new ClientStreamTracer() {};
      }
    };
    assertThat(ClientCalls.blockingUnaryCall(channel, TestMethods.UNARY,
        CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS).withStreamTracerFactory(record), "hello"))
        .isEqualTo("hello");
    assertThat(serverCalls.get()).as("calls the server saw").isEqualTo(1);
    assertThat(attempts).hasSize(51);
    assertThat(attempts.subList(1, 51)).allMatch(ClientStreamTracer.StreamInfo::isTransparentRetry);
  }

  /**
   * A call that never finds a connection to send it on ends, as grpc-java's does, after 1,000
   * replays, with INTERNAL naming the last reason; the refusals came inside {@code newStream}, and
   * the replays did not nest (no stack overflow).
   */
  @Test
  void aCallNeverSentAThousandTimesFails() throws Exception {
    NotSendingProvider provider = new NotSendingProvider(5_000);
    ManagedChannel channel = channel(provider);
    assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(channel, TestMethods.UNARY,
        CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), "hello"))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INTERNAL);
          assertThat(e.getStatus().getDescription()).contains("1000 tries").contains("not sent");
        });
    assertThat(5_000 - provider.notSent.get()).as("streams asked for").isEqualTo(TernClientCall.MAX_NOT_SENT_REPLAYS + 1);
    assertThat(serverCalls.get()).isZero();
  }

  @AfterEach
  void stop() throws InterruptedException {
    for (ManagedChannel c : channels) {
      c.shutdownNow();
      assertThat(c.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    for (Server s : servers) {
      s.shutdownNow();
      assertThat(s.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    transportThread.shutdownNow();
  }
}
