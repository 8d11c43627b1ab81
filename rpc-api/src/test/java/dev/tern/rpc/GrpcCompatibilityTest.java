package dev.tern.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.rpc.inprocess.InProcessAddress;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ClientStreamTracer;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServerStreamTracer;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Where Tern's call layer behaves as grpc-java's does, as grpc-java's own interop cases expect. */
@Timeout(30)
class GrpcCompatibilityTest {
  private static final Metadata.Key<String> TIMEOUT_TEXT =
      Metadata.Key.of("grpc-timeout", Metadata.ASCII_STRING_MARSHALLER);
  private final InProcessAddress address = new InProcessAddress("compat-" + UUID.randomUUID());
  private final List<AutoCloseable> closers = new CopyOnWriteArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    for (AutoCloseable c : closers) {
      c.close();
    }
  }

  private Server server(TernServerBuilder builder) throws Exception {
    Server s = builder.listen("inprocess", address).build().start();
    closers.add(0, () -> {
      s.shutdownNow();
      assertThat(s.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    });
    return s;
  }

  private ManagedChannel channel(TernChannelBuilder builder) {
    ManagedChannel c = builder.transports("inprocess").usePlaintext().build();
    closers.add(0, () -> {
      c.shutdownNow();
      assertThat(c.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    });
    return c;
  }

  private ManagedChannel channel() {
    return channel(TernChannelBuilder.forAddress(address));
  }

  private static CallOptions withTracer(ClientStreamTracer tracer) {
    return CallOptions.DEFAULT.withStreamTracerFactory(new ClientStreamTracer.Factory() {
      @Override
      public ClientStreamTracer newClientStreamTracer(ClientStreamTracer.StreamInfo info, Metadata headers) {
        return tracer;
      }
    });
  }

  @Test
  void aClientTracerHearsTheResponseHeadersOnce() throws Exception {
    server(TernServerBuilder.create().addService(TestMethods.service()));
    AtomicInteger heard = new AtomicInteger();
    ClientStreamTracer counting = new ClientStreamTracer() {
      @Override
      public void inboundHeaders() {
        heard.incrementAndGet(); // grpc-api's inboundHeaders(Metadata) calls this one
      }
    };
    assertThat(ClientCalls.blockingUnaryCall(channel(), TestMethods.UNARY, withTracer(counting), "x")).isEqualTo("x");
    assertThat(heard).hasValue(1);
  }

  @Test
  void aThrowingClientTracerLeavesTheApplicationItsHeaders() throws Exception {
    server(TernServerBuilder.create().addService(TestMethods.service()));
    ClientStreamTracer throwing = new ClientStreamTracer() {
      @Override
      public void inboundHeaders(Metadata headers) {
        throw new IllegalStateException("broken tracer");
      }
    };
    CompletableFuture<Metadata> headers = new CompletableFuture<>();
    CompletableFuture<Status> closed = new CompletableFuture<>();
    ClientCall<String, String> call = channel().newCall(TestMethods.UNARY, withTracer(throwing));
    call.start(new ClientCall.Listener<>() {
      @Override public void onHeaders(Metadata h) { headers.complete(h); }

      @Override public void onClose(Status status, Metadata trailers) { closed.complete(status); }
    }, new Metadata());
    call.sendMessage("x");
    call.halfClose();
    call.request(1);
    assertThat(headers.get(5, TimeUnit.SECONDS)).isNotNull();
    assertThat(closed.get(5, TimeUnit.SECONDS).isOk()).isTrue();
  }

  @Test
  void serverInterceptorsSeeTheGrpcTimeoutHeader() throws Exception {
    CompletableFuture<Metadata> seen = new CompletableFuture<>();
    ServerInterceptor capture = new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata h, ServerCallHandler<Q, R> next) {
        seen.complete(h);
        return next.startCall(call, h);
      }
    };
    server(TernServerBuilder.create().addService(TestMethods.service()).intercept(capture));
    ClientCalls.blockingUnaryCall(channel(), TestMethods.UNARY, CallOptions.DEFAULT.withDeadlineAfter(100, TimeUnit.MINUTES), "x");
    String value = seen.get(5, TimeUnit.SECONDS).get(TIMEOUT_TEXT);
    assertThat(value).as("grpc-timeout as a server interceptor reads it").isNotNull();
    long minutes = TimeUnit.NANOSECONDS.toMinutes(dev.tern.rpc.spi.GrpcTimeout.decode(value));
    assertThat(minutes).isBetween(99L, 100L);
  }

  @Test
  void grpcTimeoutIsEncodedAsTheSpecSays() {
    // gRPC over HTTP/2: at most 8 digits, then the unit; the smallest unit that fits, rounded up.
    assertThat(dev.tern.rpc.spi.GrpcTimeout.encode(99_999_999L)).isEqualTo("99999999n");
    assertThat(dev.tern.rpc.spi.GrpcTimeout.encode(100_000_000L)).isEqualTo("100000u");
    assertThat(dev.tern.rpc.spi.GrpcTimeout.encode(TimeUnit.MINUTES.toNanos(100))).isEqualTo("6000000m");
    assertThat(dev.tern.rpc.spi.GrpcTimeout.encode(TimeUnit.DAYS.toNanos(4000))).isEqualTo("5760000M");
    assertThat(dev.tern.rpc.spi.GrpcTimeout.encode(TimeUnit.DAYS.toNanos(100_000))).isEqualTo("2400000H");
    assertThat(dev.tern.rpc.spi.GrpcTimeout.decode("6000000m")).isEqualTo(TimeUnit.MINUTES.toNanos(100));
    assertThatThrownBy(() -> dev.tern.rpc.spi.GrpcTimeout.decode("12x")).hasMessageContaining("'12x'");
  }

  @Test
  void aCallToAnUnknownServiceReachesTheServerTracers() throws Exception {
    CompletableFuture<String> tracedMethod = new CompletableFuture<>();
    CompletableFuture<Status> tracedClose = new CompletableFuture<>();
    ServerStreamTracer.Factory factory = new ServerStreamTracer.Factory() {
      @Override
      public ServerStreamTracer newServerStreamTracer(String fullMethodName, Metadata headers) {
        tracedMethod.complete(fullMethodName);
        return new ServerStreamTracer() {
          @Override public void streamClosed(Status status) { tracedClose.complete(status); }
        };
      }
    };
    server(TernServerBuilder.create().addService(TestMethods.service()).addStreamTracerFactory(factory));
    MethodDescriptor<String, String> unknown = TestMethods.UNARY.toBuilder()
        .setFullMethodName("test.Missing/Call").build();
    assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(channel(), unknown, CallOptions.DEFAULT, "x"))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNIMPLEMENTED));
    assertThat(tracedMethod.get(5, TimeUnit.SECONDS)).isEqualTo("test.Missing/Call");
    assertThat(tracedClose.get(5, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
  }

  @Test
  void serverTracersHearTheCloseWhenTheApplicationCloses() throws Exception {
    // As grpc-java's server streams: the tracer's streamClosed comes with close(), before the
    // trailers leave, so census has the call's end before the client can start its next call.
    CompletableFuture<Status> tracerClosed = new CompletableFuture<>();
    ServerStreamTracer.Factory factory = new ServerStreamTracer.Factory() {
      @Override
      public ServerStreamTracer newServerStreamTracer(String fullMethodName, Metadata headers) {
        return new ServerStreamTracer() {
          @Override public void streamClosed(Status status) { tracerClosed.complete(status); }
        };
      }
    };
    CompletableFuture<Boolean> closedWithinClose = new CompletableFuture<>();
    ServerServiceDefinition service = ServerServiceDefinition.builder("test.Echo")
        .addMethod(TestMethods.UNARY, ServerCalls.asyncUnaryCall((req, obs) -> {
          obs.onNext(req);
          obs.onCompleted();
          closedWithinClose.complete(tracerClosed.isDone()); // still on the handler's thread
        }))
        .build();
    server(TernServerBuilder.create().addService(service).addStreamTracerFactory(factory));
    assertThat(ClientCalls.blockingUnaryCall(channel(), TestMethods.UNARY, CallOptions.DEFAULT, "x")).isEqualTo("x");
    assertThat(closedWithinClose.get(5, TimeUnit.SECONDS)).isTrue();
    assertThat(tracerClosed.get(5, TimeUnit.SECONDS).isOk()).isTrue();
  }

  @Test
  void enableAndDisableRetryAreAcceptedAndRecorded() {
    TernChannelBuilder b = TernChannelBuilder.forAddress(address);
    assertThat(b.retryEnabled()).as("grpc-java's default").isTrue();
    assertThat(b.disableRetry().retryEnabled()).isFalse();
    assertThat(b.enableRetry().retryEnabled()).isTrue();
  }

  @Test
  void deadlineAndSizeStatusesUseGrpcJavasWording() throws Exception {
    server(TernServerBuilder.create().addService(TestMethods.service()));
    ManagedChannel channel = channel();
    assertThat(statusOf(() -> ClientCalls.blockingUnaryCall(channel, TestMethods.UNARY,
        CallOptions.DEFAULT.withDeadlineAfter(-10, TimeUnit.SECONDS), "x")).getDescription())
        .startsWith("ClientCall started after CallOptions deadline was exceeded ");
    Status slow = statusOf(() -> ClientCalls.blockingUnaryCall(channel, TestMethods.SLOW,
        CallOptions.DEFAULT.withDeadlineAfter(200, TimeUnit.MILLISECONDS), "x"));
    assertThat(slow.getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    // The pattern grpc-java's AbstractInteropTest.deadlineExceeded matches.
    assertThat(slow.getDescription()).matches("CallOptions deadline exceeded after .*s. \\[.*\\]");
    Status tooBig = statusOf(() -> ClientCalls.blockingUnaryCall(channel, TestMethods.UNARY,
        CallOptions.DEFAULT.withMaxInboundMessageSize(3), "four"));
    assertThat(tooBig.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(tooBig.getDescription()).isEqualTo("gRPC message exceeds maximum size 3: 4");
    Status tooBigOut = statusOf(() -> ClientCalls.blockingUnaryCall(channel, TestMethods.UNARY,
        CallOptions.DEFAULT.withMaxOutboundMessageSize(3), "four"));
    assertThat(tooBigOut.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(tooBigOut.getDescription()).isEqualTo("message too large 4 > 3");
  }

  @Test
  void aServerSideDeadlineReachesTheClientAsItsOwnDeadline() throws Exception {
    // The server's deadline fires at the same instant as the client's; whichever wins, the client
    // reports its own deadline, as grpc-java's does.
    server(TernServerBuilder.create().addService(TestMethods.service()));
    ManagedChannel channel = channel();
    for (int i = 0; i < 5; i++) {
      Status s = statusOf(() -> ClientCalls.blockingUnaryCall(channel, TestMethods.SLOW,
          CallOptions.DEFAULT.withDeadlineAfter(50, TimeUnit.MILLISECONDS), "x"));
      assertThat(s.getDescription()).startsWith("CallOptions deadline exceeded after 0.0");
    }
  }

  @Test
  void aWaitForReadyCallAllowedEarlyDataWaitsForTheServer() throws Exception {
    ManagedChannel channel = channel(TernChannelBuilder.forAddress(address)
        .initialReconnectBackoff(50, TimeUnit.MILLISECONDS));
    MethodDescriptor<String, String> idempotent = TestMethods.UNARY.toBuilder().setIdempotent(true).build();
    CompletableFuture<String> call = CompletableFuture.supplyAsync(() -> ClientCalls.blockingUnaryCall(channel,
        idempotent, CallOptions.DEFAULT.withWaitForReady().withDeadlineAfter(20, TimeUnit.SECONDS), "waited"));
    awaitState(channel, ConnectivityState.TRANSIENT_FAILURE);
    assertThat(call).as("no server yet: the call must wait").isNotDone();
    server(TernServerBuilder.create().addService(TestMethods.service()));
    assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo("waited");
  }

  @Test
  void gracefulShutdownLetsCallsOnADrainingTransportFinish() throws Exception {
    CompletableFuture<Runnable> answer = new CompletableFuture<>();
    ServerServiceDefinition held = ServerServiceDefinition.builder("test.Held")
        .addMethod(TestMethods.SLOW.toBuilder().setFullMethodName("test.Held/Call").build(),
            ServerCalls.asyncUnaryCall((req, obs) -> answer.complete(() -> {
              obs.onNext("finished");
              obs.onCompleted();
            })))
        .build();
    Server server = server(TernServerBuilder.create().addService(held));
    ManagedChannel channel = channel();
    MethodDescriptor<String, String> method = TestMethods.SLOW.toBuilder().setFullMethodName("test.Held/Call").build();
    CompletableFuture<String> call = CompletableFuture.supplyAsync(() ->
        ClientCalls.blockingUnaryCall(channel, method, CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS), "x"));
    Runnable finish = answer.get(5, TimeUnit.SECONDS);
    server.shutdown(); // the server's GOAWAY: the client's transport drains
    awaitState(channel, ConnectivityState.IDLE);
    channel.shutdown();
    finish.run();
    assertThat(call.get(5, TimeUnit.SECONDS)).isEqualTo("finished");
    assertThat(channel.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
  }

  private static void awaitState(ManagedChannel channel, ConnectivityState wanted) throws Exception {
    CompletableFuture<Void> reached = new CompletableFuture<>();
    Runnable[] check = new Runnable[1];
    check[0] = () -> {
      ConnectivityState s = channel.getState(false);
      if (s == wanted) {
        reached.complete(null);
      } else {
        channel.notifyWhenStateChanged(s, check[0]);
      }
    };
    check[0].run();
    reached.get(10, TimeUnit.SECONDS);
  }

  static Status statusOf(Runnable call) {
    try {
      call.run();
    } catch (StatusRuntimeException e) {
      return e.getStatus();
    }
    throw new AssertionError("the call succeeded");
  }
}
