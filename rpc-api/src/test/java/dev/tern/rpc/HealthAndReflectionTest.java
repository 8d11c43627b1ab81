package dev.tern.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.inprocess.InProcessAddress;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.reflection.v1.ServiceResponse;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** grpc-java's health and reflection services run unchanged on a Tern server. */
@Timeout(30)
class HealthAndReflectionTest {
  private final HealthStatusManager health = new HealthStatusManager();
  private Server server;
  private ManagedChannel channel;

  @BeforeEach
  void setUp() throws Exception {
    InProcessAddress address = new InProcessAddress("health-" + UUID.randomUUID());
    server = TernServerBuilder.create().listen("inprocess", address)
        .addService(health.getHealthService())
        .addService(ProtoReflectionServiceV1.newInstance())
        .addService(TestMethods.service())
        .build().start();
    channel = TernChannelBuilder.forAddress(address).transports("inprocess").usePlaintext().build();
  }

  @AfterEach
  void tearDown() throws Exception {
    channel.shutdownNow();
    server.shutdownNow();
    assertThat(channel.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    assertThat(server.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void healthCheckReportsWhatTheManagerSays() {
    HealthGrpc.HealthBlockingStub stub = HealthGrpc.newBlockingStub(channel);
    assertThat(stub.check(HealthCheckRequest.getDefaultInstance()).getStatus())
        .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
    health.setStatus("test.Echo", HealthCheckResponse.ServingStatus.NOT_SERVING);
    assertThat(stub.check(HealthCheckRequest.newBuilder().setService("test.Echo").build()).getStatus())
        .isEqualTo(HealthCheckResponse.ServingStatus.NOT_SERVING);
  }

  @Test
  void reflectionListsTheServersServices() throws Exception {
    CompletableFuture<ServerReflectionResponse> answer = new CompletableFuture<>();
    StreamObserver<ServerReflectionRequest> requests = ServerReflectionGrpc.newStub(channel)
        .serverReflectionInfo(new StreamObserver<>() {
          @Override public void onNext(ServerReflectionResponse value) { answer.complete(value); }

          @Override public void onError(Throwable t) { answer.completeExceptionally(t); }

          @Override public void onCompleted() {}
        });
    requests.onNext(ServerReflectionRequest.newBuilder().setListServices("*").build());
    ServerReflectionResponse response = answer.get(10, TimeUnit.SECONDS);
    requests.onCompleted();
    List<String> names = response.getListServicesResponse().getServiceList().stream()
        .map(ServiceResponse::getName).collect(Collectors.toList());
    // Reflection lists services that carry a proto descriptor; the hand-written test.Echo has none.
    assertThat(names).containsExactlyInAnyOrder("grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection");
  }
}
