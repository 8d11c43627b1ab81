package com.example.greeter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.example.greeter.proto.GreeterGrpc;
import com.example.greeter.proto.HelloRequest;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernChannels;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.inprocess.InProcessAddress;
import dev.tern.transport.udp.rpc.UdpTransportOptions;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What docs/getting-started.md promises, from the published artifacts alone. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class GettingStartedTest {
  @TempDir static Path dir;
  static DevCertificate certificate;
  static Server server;
  static int port;
  static int udpPort;
  static final byte[] UDP_KEY = UdpTransportOptions.newServerKey();

  @BeforeAll
  static void startServer() throws Exception {
    certificate = DevCertificate.create(dir);
    server = GreeterServer.start(0, certificate.server(), 0, UDP_KEY);
    port = ((java.net.InetSocketAddress) server.getListenSockets().get(0)).getPort();
    udpPort = ((java.net.InetSocketAddress) server.getListenSockets().get(2)).getPort();
  }

  @AfterAll
  static void stopServer() throws InterruptedException {
    server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
  }

  @ParameterizedTest
  @ValueSource(strings = {"tcp", "quic", "udp"})
  void helloOverTlsOnEachTransport(String transport) throws InterruptedException {
    boolean udp = transport.equals("udp");
    ManagedChannel channel = GreeterClient.channel("localhost", udp ? udpPort : port,
        certificate.client(), transport, udp ? UdpTransportOptions.publicKeyOf(UDP_KEY) : null);
    try {
      assertEquals("Hello, " + transport + "!", GreeterClient.sayHello(channel, transport));
      assertEquals(transport, TernChannels.connectionInfo(channel).transport());
      StatusRuntimeException refused = assertThrows(StatusRuntimeException.class,
          () -> GreeterClient.sayHello(channel, ""));
      assertEquals(Status.Code.INVALID_ARGUMENT, refused.getStatus().getCode());
      assertEquals("name is empty", refused.getStatus().getDescription());
      HealthCheckResponse health = HealthGrpc.newBlockingStub(channel)
          .withDeadlineAfter(10, TimeUnit.SECONDS).check(HealthCheckRequest.getDefaultInstance());
      assertEquals(HealthCheckResponse.ServingStatus.SERVING, health.getStatus());
    } finally {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aChannelThatNamesNoTransportGetsThrough() throws InterruptedException {
    ManagedChannel channel = GreeterClient.channel("localhost", port, certificate.client(), null);
    try {
      assertEquals("Hello, auto!", GreeterClient.sayHello(channel, "auto"));
      // quic or tcp at first contact (no udp pin); udp once an earlier TLS call of this JVM (the
      // channels share the process's TransportMemory) heard the server advertise its udp key.
      String carried = TernChannels.connectionInfo(channel).transport();
      if (!carried.equals("quic") && !carried.equals("tcp") && !carried.equals("udp")) {
        throw new AssertionError("carried by " + carried);
      }
    } finally {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void inProcessForTests() throws Exception {
    InProcessAddress address = new InProcessAddress("greeter-test");
    Server local = TernServerBuilder.create().listen("inprocess", address)
        .addService(new GreeterService()).build().start();
    ManagedChannel channel = TernChannelBuilder.forAddress(address).transports("inprocess")
        .usePlaintext().build();
    try {
      assertEquals("Hello, test!", GreeterGrpc.newBlockingStub(channel)
          .sayHello(HelloRequest.newBuilder().setName("test").build()).getMessage());
    } finally {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      local.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }
}
