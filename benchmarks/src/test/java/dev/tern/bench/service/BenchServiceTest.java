package dev.tern.bench.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.bench.stack.GrpcNettyStack;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.net.InetSocketAddress;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class BenchServiceTest {
  private Server server;
  private ManagedChannel channel;

  @BeforeEach
  void start() throws Exception {
    GrpcNettyStack stack = new GrpcNettyStack();
    server = stack.startServer(new InetSocketAddress("127.0.0.1", 0), new BenchService().definition(), null);
    channel = stack.newChannel("127.0.0.1", ((InetSocketAddress) server.getListenSockets().get(0)).getPort(), null);
  }

  @AfterEach
  void stop() throws Exception {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }

  @Test
  void unaryAnswersWithTheSizeAskedForAndStampsItsTimes() {
    long before = System.nanoTime();
    byte[] r = ClientCalls.blockingUnaryCall(channel, BenchService.UNARY, CallOptions.DEFAULT,
        BenchMessages.unaryRequest(1024, 8192, before));
    assertThat(r).hasSize(8192);
    assertThat(BenchMessages.serverRecvNs(r)).isGreaterThanOrEqualTo(before);
    assertThat(BenchMessages.serverSendNs(r)).isGreaterThanOrEqualTo(BenchMessages.serverRecvNs(r));
  }

  @Test
  void unaryRejectsANegativeSizeWithInvalidArgument() {
    assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(channel, BenchService.UNARY, CallOptions.DEFAULT,
        BenchMessages.unaryRequest(16, -5, 0)))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
          assertThat(e.getStatus().getDescription()).contains("-5");
        });
  }

  @Test
  void downloadDeliversExactlyTheBytesAskedForAndStatsReportsThem() {
    Iterator<byte[]> it = ClientCalls.blockingServerStreamingCall(channel, BenchService.DOWNLOAD,
        CallOptions.DEFAULT, BenchMessages.downloadRequest(100_000, 16 * 1024, 42));
    long n = 0;
    int messages = 0;
    while (it.hasNext()) {
      n += it.next().length;
      messages++;
    }
    assertThat(n).isEqualTo(100_000);
    assertThat(messages).isEqualTo(7);
    byte[] stats = ClientCalls.blockingUnaryCall(channel, BenchService.STATS, CallOptions.DEFAULT,
        BenchMessages.longMessage(42));
    assertThat(java.nio.ByteBuffer.wrap(stats).getLong(0)).isEqualTo(100_000);
  }
}
