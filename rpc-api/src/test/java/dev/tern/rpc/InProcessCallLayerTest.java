package dev.tern.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.rpc.inprocess.InProcessAddress;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class InProcessCallLayerTest {
  private Server server;
  private ManagedChannel channel;
  private InProcessAddress address;
  private final java.util.concurrent.CompletableFuture<ConnectionInfo> connected =
      new java.util.concurrent.CompletableFuture<>();

  @BeforeEach
  void setUp() throws Exception {
    address = new InProcessAddress("calls-" + UUID.randomUUID());
    server = TernServerBuilder.create().listen("inprocess", address)
        .addService(TestMethods.service()).build().start();
    channel = TernChannelBuilder.forAddress(address).transports("inprocess").usePlaintext()
        .connectionListener(connected::complete).build();
  }

  @AfterEach
  void tearDown() throws Exception {
    channel.shutdownNow();
    server.shutdownNow();
    assertThat(channel.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    assertThat(server.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void unaryCallReturnsTheEcho() throws Exception {
    String reply = ClientCalls.blockingUnaryCall(channel, TestMethods.UNARY, CallOptions.DEFAULT, "hello");
    assertThat(reply).isEqualTo("hello");
    assertThat(TernChannels.selectedTransport(channel)).isEqualTo("inprocess");
    assertThat(TernChannels.connectionInfo(channel).protocolVersion()).isEqualTo(1);
    assertThat(connected.get(5, TimeUnit.SECONDS)).as("connection listener told of the transport").isNotNull()
        .extracting(ConnectionInfo::transport).isEqualTo("inprocess");
  }

  @Test
  void serverStreamingDeliversEveryMessage() {
    Iterator<String> it = ClientCalls.blockingServerStreamingCall(channel, TestMethods.SERVER_STREAMING,
        CallOptions.DEFAULT, "50");
    List<String> got = new ArrayList<>();
    it.forEachRemaining(got::add);
    assertThat(got).hasSize(50).startsWith("m0", "m1").endsWith("m49");
  }

  @Test
  void deadlineExpiresOnTheClientWhenTheServerNeverAnswers() {
    assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(channel, TestMethods.SLOW,
        CallOptions.DEFAULT.withDeadlineAfter(200, TimeUnit.MILLISECONDS), "x"))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));
  }

  @Test
  void unknownMethodIsUnimplemented() {
    assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(channel,
        TestMethods.method("Nope", io.grpc.MethodDescriptor.MethodType.UNARY), CallOptions.DEFAULT, "x"))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
          assertThat(e.getStatus().getDescription()).contains("test.Echo/Nope");
        });
  }

  @Test
  void callsFailWithUnavailableWhenNoServerListens() {
    ManagedChannel lonely = TernChannelBuilder.forAddress(new InProcessAddress("nobody-" + UUID.randomUUID()))
        .transports("inprocess").usePlaintext().build();
    try {
      assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(lonely, TestMethods.UNARY, CallOptions.DEFAULT, "x"))
          .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
            assertThat(e.getStatus().getDescription()).contains("no in-process server");
          });
    } finally {
      lonely.shutdownNow();
    }
  }
}
