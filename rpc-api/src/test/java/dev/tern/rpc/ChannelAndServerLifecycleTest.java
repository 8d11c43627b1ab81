package dev.tern.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.rpc.inprocess.InProcessAddress;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ClientStreamTracer;
import io.grpc.ConnectivityState;
import io.grpc.ForwardingClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerStreamTracer;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.io.IOException;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Connecting, reconnecting and shutting down channels and servers. */
@Timeout(30)
class ChannelAndServerLifecycleTest {

  private static Server startServer(InProcessAddress address) throws IOException {
    return TernServerBuilder.create().listen("inprocess", address).addService(TestMethods.service()).build().start();
  }

  private static ManagedChannel channel(InProcessAddress address) {
    return TernChannelBuilder.forAddress(address).transports("inprocess").usePlaintext()
        .initialReconnectBackoff(20, TimeUnit.MILLISECONDS).build();
  }

  @Test
  void channelReconnectsOnceTheServerAppears() throws Exception {
    InProcessAddress address = new InProcessAddress("late-" + UUID.randomUUID());
    ManagedChannel channel = channel(address);
    Server server = null;
    try {
      assertThat(channel.getState(false)).isEqualTo(ConnectivityState.IDLE);
      assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(channel, TestMethods.UNARY, CallOptions.DEFAULT, "x"))
          .isInstanceOfSatisfying(StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getDescription()).contains("connecting to").contains("failed"));
      server = startServer(address);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      String reply = null;
      while (reply == null && System.nanoTime() < deadline) {
        try {
          reply = ClientCalls.blockingUnaryCall(channel, TestMethods.UNARY,
              CallOptions.DEFAULT.withWaitForReady().withDeadlineAfter(2, TimeUnit.SECONDS), "back");
        } catch (StatusRuntimeException e) {
          assertThat(e.getStatus().getCode()).isIn(Status.Code.UNAVAILABLE, Status.Code.DEADLINE_EXCEEDED);
        }
      }
      assertThat(reply).isEqualTo("back");
      assertThat(channel.getState(false)).isEqualTo(ConnectivityState.READY);
    } finally {
      channel.shutdownNow();
      if (server != null) {
        server.shutdownNow();
      }
    }
    assertThat(channel.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void shutDownChannelRefusesNewCallsAndTerminates() throws Exception {
    InProcessAddress address = new InProcessAddress("closing-" + UUID.randomUUID());
    Server server = startServer(address);
    ManagedChannel channel = channel(address);
    try {
      assertThat(ClientCalls.blockingUnaryCall(channel, TestMethods.UNARY, CallOptions.DEFAULT, "a")).isEqualTo("a");
      CompletableFuture<Void> changed = new CompletableFuture<>();
      channel.notifyWhenStateChanged(ConnectivityState.READY, () -> changed.complete(null));
      channel.shutdown();
      assertThat(channel.isShutdown()).isTrue();
      changed.get(5, TimeUnit.SECONDS);
      assertThat(channel.getState(false)).isEqualTo(ConnectivityState.SHUTDOWN);
      assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(channel, TestMethods.UNARY, CallOptions.DEFAULT, "b"))
          .isInstanceOfSatisfying(StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
      assertThat(channel.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
      assertThat(channel.isTerminated()).isTrue();
    } finally {
      channel.shutdownNow();
      server.shutdownNow();
    }
  }

  @Test
  void gracefulServerShutdownLetsTheRunningCallFinish() throws Exception {
    InProcessAddress address = new InProcessAddress("graceful-" + UUID.randomUUID());
    Server server = startServer(address);
    ManagedChannel channel = channel(address);
    try {
      ClientCall<String, String> call = channel.newCall(TestMethods.BIDI, CallOptions.DEFAULT);
      CompletableFuture<String> first = new CompletableFuture<>();
      CompletableFuture<Status> closed = new CompletableFuture<>();
      call.start(new ClientCall.Listener<>() {
        @Override public void onMessage(String message) { first.complete(message); }

        @Override public void onClose(Status status, Metadata trailers) { closed.complete(status); }
      }, new Metadata());
      call.request(10);
      call.sendMessage("before");
      assertThat(first.get(5, TimeUnit.SECONDS)).isEqualTo("before");
      server.shutdown();
      assertThat(server.isShutdown()).isTrue();
      assertThat(server.awaitTermination(200, TimeUnit.MILLISECONDS)).as("terminated with a call running").isFalse();
      call.halfClose();
      assertThat(closed.get(5, TimeUnit.SECONDS).isOk()).isTrue();
      assertThat(server.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    } finally {
      channel.shutdownNow();
      server.shutdownNow();
    }
  }

  @Test
  void streamTracersAndInterceptorsSeeEveryCall() throws Exception {
    InProcessAddress address = new InProcessAddress("tracers-" + UUID.randomUUID());
    List<String> events = new CopyOnWriteArrayList<>();
    CompletableFuture<Void> streamClosed = new CompletableFuture<>();
    ServerStreamTracer.Factory factory = new ServerStreamTracer.Factory() {
      @Override
      public ServerStreamTracer newServerStreamTracer(String fullMethodName, Metadata headers) {
        events.add("new " + fullMethodName);
        return new ServerStreamTracer() {
          @Override public void serverCallStarted(ServerCallInfo<?, ?> info) {
            events.add("started " + info.getMethodDescriptor().getFullMethodName());
          }

          @Override public void inboundMessage(int seqNo) { events.add("in " + seqNo); }

          @Override public void outboundMessage(int seqNo) { events.add("out " + seqNo); }

          @Override public void streamClosed(Status status) {
            events.add("closed " + status.getCode());
            streamClosed.complete(null);
          }
        };
      }
    };
    Server server = TernServerBuilder.create().listen("inprocess", address).addService(TestMethods.service())
        .addStreamTracerFactory(factory).build().start();
    List<String> order = new CopyOnWriteArrayList<>();
    ManagedChannel channel = TernChannelBuilder.forAddress(address).transports("inprocess").usePlaintext()
        .intercept(named("first", order), named("second", order)).build();
    List<String> clientEvents = new CopyOnWriteArrayList<>();
    ClientStreamTracer.Factory clientFactory = new ClientStreamTracer.Factory() {
      @Override
      public ClientStreamTracer newClientStreamTracer(ClientStreamTracer.StreamInfo info, Metadata headers) {
        return new ClientStreamTracer() {
          @Override public void streamCreated(io.grpc.Attributes attrs, Metadata md) { clientEvents.add("created"); }

          @Override public void outboundMessage(int seqNo) { clientEvents.add("out " + seqNo); }

          @Override public void inboundMessage(int seqNo) { clientEvents.add("in " + seqNo); }

          @Override public void streamClosed(Status status) { clientEvents.add("closed " + status.getCode()); }
        };
      }
    };
    try {
      assertThat(ClientCalls.blockingUnaryCall(channel, TestMethods.UNARY,
          CallOptions.DEFAULT.withStreamTracerFactory(clientFactory), "t")).isEqualTo("t");
      streamClosed.get(5, TimeUnit.SECONDS);
      assertThat(clientEvents).containsExactly("created", "out 0", "in 0", "closed OK");
      assertThat(events).containsExactly("new test.Echo/Unary", "started test.Echo/Unary", "in 0", "out 0",
          "closed OK");
      assertThat(order).as("interceptors added last run first, as in grpc-java").containsExactly("second", "first");
    } finally {
      channel.shutdownNow();
      server.shutdownNow();
    }
  }

  private static ClientInterceptor named(String name, List<String> order) {
    return new ClientInterceptor() {
      @Override
      public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
        order.add(name);
        return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {};
      }
    };
  }
}
