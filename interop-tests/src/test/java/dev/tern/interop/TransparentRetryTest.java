package dev.tern.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.conformance.TestCertificates;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import io.grpc.CallOptions;
import io.grpc.ClientStreamTracer;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A call that never reached the server is replayed on a new connection, as grpc-java's
 * transparent retry does: the server allows one call per connection and sends GOAWAY once the
 * connection is a second old ({@code maxConnectionAge}); a second call, queued on the client
 * behind a call the server holds, was never sent when the GOAWAY came. Stock grpc-netty on both
 * ends is the reference: the queued call succeeds there, on a second connection, and its second
 * attempt's tracer is told it is a transparent retry. Tern over {@code tcp} and {@code quic} must
 * do the same; before the call layer replayed refused streams, the QUIC call failed UNAVAILABLE.
 */
class TransparentRetryTest {
  private static final TestCertificates CERTS = TestCertificates.generate();
  private static final MethodDescriptor.Marshaller<String> UTF8 = new MethodDescriptor.Marshaller<>() {
    @Override
    public InputStream stream(String value) {
      return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String parse(InputStream stream) {
      try {
        return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  };
  private static final MethodDescriptor<String, String> HOLD = unary("Hold");
  private static final MethodDescriptor<String, String> QUEUED = unary("Queued");

  private static MethodDescriptor<String, String> unary(String name) {
    return MethodDescriptor.<String, String>newBuilder().setType(MethodDescriptor.MethodType.UNARY)
        .setFullMethodName("tern.test.Retry/" + name).setRequestMarshaller(UTF8).setResponseMarshaller(UTF8)
        .build();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"grpc-netty", "tcp", "quic"})
  @Timeout(60)
  void aCallQueuedWhenTheServerSendsGoAwayIsReplayedOnANewConnection(String stack) throws Exception {
    CountDownLatch holding = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Map<String, SocketAddress> peerOf = new ConcurrentHashMap<>();
    ServerInterceptor recordPeer = new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
          ServerCallHandler<Q, R> next) {
        peerOf.put(call.getMethodDescriptor().getBareMethodName(),
            call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR));
        return next.startCall(call, headers);
      }
    };
    ServerServiceDefinition service = ServerInterceptors.intercept(ServerServiceDefinition.builder("tern.test.Retry")
        .addMethod(HOLD, ServerCalls.asyncUnaryCall((request, response) -> {
          holding.countDown();
          try {
            release.await(30, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          response.onNext("held");
          response.onCompleted();
        }))
        .addMethod(QUEUED, ServerCalls.asyncUnaryCall((request, response) -> {
          response.onNext("answered");
          response.onCompleted();
        }))
        .build(), recordPeer);

    Server server;
    ManagedChannel channel;
    if (stack.equals("grpc-netty")) {
      server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(service)
          .maxConcurrentCallsPerConnection(1).maxConnectionAge(1, TimeUnit.SECONDS)
          .maxConnectionAgeGrace(30, TimeUnit.SECONDS).build().start();
      channel = NettyChannelBuilder.forAddress("127.0.0.1", port(server)).usePlaintext().build();
    } else {
      server = TernServerBuilder.create().listen(stack, new InetSocketAddress("127.0.0.1", 0)).addService(service)
          .tls(CERTS.server()).maxConcurrentCallsPerConnection(1).maxConnectionAge(1, TimeUnit.SECONDS)
          .maxConnectionAgeGrace(30, TimeUnit.SECONDS).build().start();
      channel = TernChannelBuilder.forAddress("localhost", port(server)).transports(stack)
          .tls(CERTS.client()).build();
    }
    try {
      CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS);
      var held = ClientCalls.futureUnaryCall(channel.newCall(HOLD, options), "hold");
      assertThat(holding.await(10, TimeUnit.SECONDS)).as("the server holds the first call").isTrue();

      List<ClientStreamTracer.StreamInfo> attempts = new CopyOnWriteArrayList<>();
      ClientStreamTracer.Factory recordAttempts = new ClientStreamTracer.Factory() {
        @Override
        public ClientStreamTracer newClientStreamTracer(ClientStreamTracer.StreamInfo info, Metadata headers) {
          attempts.add(info);
          return new ClientStreamTracer() {};
        }
      };
      var queued = ClientCalls.futureUnaryCall(
          channel.newCall(QUEUED, options.withStreamTracerFactory(recordAttempts)), "queued");

      // The GOAWAY comes at 0.9-1.1 s; the queued call goes out on the next connection.
      assertThat(queued.get(20, TimeUnit.SECONDS)).isEqualTo("answered");
      assertThat(peerOf.get("Queued")).as("the queued call's connection")
          .isNotNull().isNotEqualTo(peerOf.get("Hold"));
      if (stack.equals("tcp")) {
        // Tern's tcp transport is a grpc-java channel, which retries inside the transport: the
        // channel's tracers see the call's one stream, not grpc-java's attempts (docs/errors.md).
        assertThat(attempts).as("stream attempts of the queued call").hasSize(1);
      } else {
        assertThat(attempts).as("stream attempts of the queued call").hasSize(2);
        assertThat(attempts.get(0).isTransparentRetry()).isFalse();
        assertThat(attempts.get(1).isTransparentRetry()).as("the answered attempt is a transparent retry").isTrue();
        // grpc-java does not count transparent retries as attempts.
        assertThat(attempts.get(1).getPreviousAttempts()).isZero();
      }

      assertThat(held.isDone()).as("the held call still runs in its grace time").isFalse();
      release.countDown();
      assertThat(held.get(10, TimeUnit.SECONDS)).isEqualTo("held");
    } finally {
      release.countDown();
      channel.shutdownNow();
      server.shutdownNow();
      assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  private static int port(Server server) {
    return ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
  }
}
