package dev.tern.transport.tcp;

import dev.tern.conformance.TestCertificates;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernChannels;
import dev.tern.rpc.TernServerBuilder;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.reflection.v1.ServiceResponse;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Tern over TCP speaks plain gRPC: grpc-java's health and reflection services run on a Tern server
 * unchanged and answer a stock grpc-java channel (what grpcurl-style tools do), and a Tern channel
 * calls a stock grpc-java server.
 */
@Timeout(60)
class GrpcServicesOverTcpTest {
  private static final long TIMEOUT_SECONDS = 10;
  private static final TestCertificates CERTS = TestCertificates.generate();

  private Server server;
  private ManagedChannel channel;

  @AfterEach
  void tearDown() throws InterruptedException {
    if (channel != null) {
      channel.shutdownNow();
      assertThat(channel.awaitTermination(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
    }
    if (server != null) {
      server.shutdownNow();
      assertThat(server.awaitTermination(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
    }
  }

  private static int port(Server s) {
    return ((InetSocketAddress) s.getListenSockets().get(0)).getPort();
  }

  private Server ternServerWithHealthAndReflection(TernServerBuilder builder) throws Exception {
    HealthStatusManager health = new HealthStatusManager();
    health.setStatus("tern.Example", HealthCheckResponse.ServingStatus.SERVING);
    return builder.listen("tcp", new InetSocketAddress("127.0.0.1", 0))
        .addService(health.getHealthService())
        .addService(ProtoReflectionServiceV1.newInstance())
        .build().start();
  }

  @Test
  void stockChannelChecksHealthOfATernServer() throws Exception {
    server = ternServerWithHealthAndReflection(TernServerBuilder.create());
    channel = NettyChannelBuilder.forAddress("127.0.0.1", port(server)).usePlaintext().build();
    HealthGrpc.HealthBlockingStub stub = HealthGrpc.newBlockingStub(channel)
        .withDeadlineAfter(TIMEOUT_SECONDS, TimeUnit.SECONDS);

    assertThat(stub.check(HealthCheckRequest.newBuilder().setService("tern.Example").build()).getStatus())
        .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
    assertThat(stub.check(HealthCheckRequest.getDefaultInstance()).getStatus())
        .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
    try {
      stub.check(HealthCheckRequest.newBuilder().setService("no.Such").build());
      throw new AssertionError("expected NOT_FOUND");
    } catch (StatusRuntimeException e) {
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
    }
  }

  @Test
  void stockChannelListsTheServicesOfATernServerByReflection() throws Exception {
    server = ternServerWithHealthAndReflection(TernServerBuilder.create());
    channel = NettyChannelBuilder.forAddress("127.0.0.1", port(server)).usePlaintext().build();

    CompletableFuture<ServerReflectionResponse> answer = new CompletableFuture<>();
    StreamObserver<ServerReflectionRequest> requests = ServerReflectionGrpc.newStub(channel)
        .withDeadlineAfter(TIMEOUT_SECONDS, TimeUnit.SECONDS)
        .serverReflectionInfo(new StreamObserver<>() {
          @Override public void onNext(ServerReflectionResponse value) { answer.complete(value); }
          @Override public void onError(Throwable t) { answer.completeExceptionally(t); }
          @Override public void onCompleted() { answer.completeExceptionally(new AssertionError("no answer")); }
        });
    requests.onNext(ServerReflectionRequest.newBuilder().setListServices("*").build());
    List<String> services = answer.get(TIMEOUT_SECONDS, TimeUnit.SECONDS).getListServicesResponse()
        .getServiceList().stream().map(ServiceResponse::getName).collect(Collectors.toList());
    requests.onCompleted();

    assertThat(services).contains("grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection");
  }

  @Test
  void ternChannelOverTlsChecksHealthOfATernServer() throws Exception {
    server = ternServerWithHealthAndReflection(TernServerBuilder.create().tls(CERTS.server()));
    channel = TernChannelBuilder.forAddress("localhost", port(server)).transports("tcp")
        .tls(CERTS.client()).build();
    HealthCheckResponse response = HealthGrpc.newBlockingStub(channel)
        .withDeadlineAfter(TIMEOUT_SECONDS, TimeUnit.SECONDS)
        .check(HealthCheckRequest.newBuilder().setService("tern.Example").build());
    assertThat(response.getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
    assertThat(TernChannels.connectionInfo(channel).transport()).isEqualTo("tcp");
  }

  @Test
  void ternChannelChecksHealthOfAStockServer() throws Exception {
    HealthStatusManager health = new HealthStatusManager();
    health.setStatus("stock.Example", HealthCheckResponse.ServingStatus.NOT_SERVING);
    server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(health.getHealthService()).build().start();
    channel = TernChannelBuilder.forAddress("127.0.0.1", port(server)).transports("tcp").usePlaintext().build();
    HealthCheckResponse response = HealthGrpc.newBlockingStub(channel)
        .withDeadlineAfter(TIMEOUT_SECONDS, TimeUnit.SECONDS)
        .check(HealthCheckRequest.newBuilder().setService("stock.Example").build());
    assertThat(response.getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.NOT_SERVING);
  }
}
