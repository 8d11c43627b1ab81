package dev.tern.transport.quic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.TernServerCalls;
import dev.tern.rpc.spi.DatagramImpairment;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Channels built one after the other, as an application builds them (the provider found by {@code
 * ServiceLoader}, a server name override as a deployment with its own CA sets): the second resumes
 * the session the first left and its first idempotent call reaches the server as 0-RTT early data.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ResumptionAcrossChannelsTest {
  private static final MethodDescriptor<String, String> EARLY = EndToEndZeroRttTest.method("test.Resume/Early", true);
  private static final MethodDescriptor<String, String> LATE = EndToEndZeroRttTest.method("test.Resume/Late", false);

  @Test
  void aSecondChannelOfTheProcessSendsItsFirstIdempotentCallAsEarlyData() throws Exception {
    Server server = server();
    try {
      InetSocketAddress address = (InetSocketAddress) server.getListenSockets().get(0);
      assertThat(callOnNewChannel(address, EARLY)).as("first contact").isEqualTo("early=false");
      assertThat(callOnNewChannel(address, EARLY)).as("a second channel resumes").isEqualTo("early=true");
      assertThat(callOnNewChannel(address, LATE)).as("a call not allowed early data waits for the handshake")
          .isEqualTo("early=false");
    } finally {
      server.shutdownNow();
      assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  static Server server() throws java.io.IOException {
    ServerServiceDefinition service = ServerServiceDefinition.builder("test.Resume")
        .addMethod(EARLY, ServerCalls.asyncUnaryCall((request, response) -> {
          response.onNext("early=" + TernServerCalls.connectionInfo().earlyDataAccepted());
          response.onCompleted();
        }))
        .addMethod(LATE, ServerCalls.asyncUnaryCall((request, response) -> {
          response.onNext("early=" + TernServerCalls.connectionInfo().earlyDataAccepted());
          response.onCompleted();
        }))
        .build();
    // 20 ms one-way delay into the server, so the handshake cannot overtake the first call.
    QuicTransportProvider delayed = new QuicTransportProvider(TransportOptions.defaults()
        .with(QuicTransportOptions.IMPAIRMENT, DatagramImpairment.of(0, 0, 0, 2).withInboundDelayMillis(20)));
    return TernServerBuilder.create().addTransportProvider(delayed)
        .listen("quic", new InetSocketAddress("127.0.0.1", 0)).addService(service)
        .tls(TestCertificates.server()).build().start();
  }

  /** A channel built from scratch, its provider from {@code ServiceLoader}; one call, then closed. */
  static String callOnNewChannel(InetSocketAddress address, MethodDescriptor<String, String> method)
      throws InterruptedException {
    ManagedChannel channel = TernChannelBuilder.forAddress("127.0.0.1", address.getPort()).transports("quic")
        .tls(TestCertificates.client().withServerNameOverride("localhost")).build();
    try {
      return ClientCalls.blockingUnaryCall(channel, method,
          CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), "hi");
    } finally {
      channel.shutdown();
      assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }
}
