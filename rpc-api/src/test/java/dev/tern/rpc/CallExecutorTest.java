package dev.tern.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.inprocess.InProcessAddress;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code TernServerBuilder.callExecutor}, as grpc-java's: the supplier sees each call and its
 * headers before it starts and picks the executor its handler runs on; null (or a supplier that
 * throws) leaves the call on the server's executor.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CallExecutorTest {
  private static final MethodDescriptor<String, String> THREAD = TestMethods.method("Thread", MethodDescriptor.MethodType.UNARY);
  private final ExecutorService server = Executors.newFixedThreadPool(2, r -> new Thread(r, "server-default"));
  private final ExecutorService picked = Executors.newFixedThreadPool(2, r -> new Thread(r, "picked-by-supplier"));
  private Server tern;
  private ManagedChannel channel;

  @Test
  void theSuppliersExecutorRunsTheCallsItPicksAndNullLeavesTheServersOwn() throws Exception {
    InProcessAddress address = new InProcessAddress("executors-" + UUID.randomUUID());
    ServerServiceDefinition service = ServerServiceDefinition.builder("test.Echo")
        .addMethod(THREAD, ServerCalls.asyncUnaryCall((request, response) -> {
          response.onNext(Thread.currentThread().getName());
          response.onCompleted();
        }))
        .build();
    io.grpc.Metadata.Key<String> lane = io.grpc.Metadata.Key.of("lane", io.grpc.Metadata.ASCII_STRING_MARSHALLER);
    tern = TernServerBuilder.create().listen("inprocess", address).addService(service).executor(server)
        .callExecutor(new io.grpc.ServerCallExecutorSupplier() {
          @Override
          public <ReqT, RespT> java.util.concurrent.Executor getExecutor(io.grpc.ServerCall<ReqT, RespT> call,
              io.grpc.Metadata metadata) {
            assertThat(call.getMethodDescriptor().getFullMethodName()).isEqualTo("test.Echo/Thread");
            String which = metadata.get(lane);
            if ("throw".equals(which)) {
              throw new IllegalStateException("supplier failed on purpose");
            }
            return "fast".equals(which) ? picked : null;
          }
        })
        .build().start();
    channel = TernChannelBuilder.forAddress(address).transports("inprocess").usePlaintext().build();
    assertThat(call(lane, "fast")).isEqualTo("picked-by-supplier");
    assertThat(call(lane, "other")).isEqualTo("server-default");
    assertThat(call(lane, "throw")).isEqualTo("server-default");
  }

  private String call(io.grpc.Metadata.Key<String> lane, String value) {
    io.grpc.Metadata md = new io.grpc.Metadata();
    md.put(lane, value);
    return ClientCalls.blockingUnaryCall(io.grpc.ClientInterceptors.intercept(channel,
        io.grpc.stub.MetadataUtils.newAttachHeadersInterceptor(md)), THREAD,
        CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), "which thread?");
  }

  @AfterEach
  void stop() throws InterruptedException {
    if (channel != null) {
      channel.shutdownNow();
      assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    if (tern != null) {
      tern.shutdownNow();
      assertThat(tern.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    server.shutdownNow();
    picked.shutdownNow();
  }
}
