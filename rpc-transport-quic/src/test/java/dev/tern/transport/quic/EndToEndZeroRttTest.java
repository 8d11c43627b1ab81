package dev.tern.transport.quic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernChannels;
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

/** Through the public API: a channel that resumes a TLS session sends its first idempotent call in 0-RTT. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EndToEndZeroRttTest {
  private static final MethodDescriptor.Marshaller<String> UTF8 = dev.tern.conformance.Utf8.MARSHALLER;

  /** Idempotent, so the call layer lets it go out as early data. */
  private static final MethodDescriptor<String, String> EARLY = MethodDescriptor.<String, String>newBuilder()
      .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName("test.Early/Connection")
      .setRequestMarshaller(UTF8).setResponseMarshaller(UTF8).setIdempotent(true).build();

  /** A unary method of strings; {@code idempotent} makes the call layer allow it early data. */
  static MethodDescriptor<String, String> method(String fullName, boolean idempotent) {
    return MethodDescriptor.<String, String>newBuilder().setType(MethodDescriptor.MethodType.UNARY)
        .setFullMethodName(fullName).setRequestMarshaller(UTF8).setResponseMarshaller(UTF8)
        .setIdempotent(idempotent).build();
  }

  @Test
  void aResumedChannelsFirstCallArrivesAsEarlyData() throws Exception {
    ServerServiceDefinition service = ServerServiceDefinition.builder("test.Early")
        .addMethod(EARLY, ServerCalls.asyncUnaryCall((request, response) -> {
          response.onNext("earlyData=" + TernServerCalls.connectionInfo().earlyDataAccepted());
          response.onCompleted();
        }))
        .build();
    // 20 ms one-way delay into the server: on bare loopback a handshake can finish before the call
    // layer even opens the call's stream, and there would be nothing to send early.
    QuicTransportProvider delayed = new QuicTransportProvider(TransportOptions.defaults()
        .with(QuicTransportOptions.IMPAIRMENT, DatagramImpairment.of(0, 0, 0, 1).withInboundDelayMillis(20)));
    Server server = TernServerBuilder.create().addTransportProvider(delayed)
        .listen("quic", new InetSocketAddress("127.0.0.1", 0)).addService(service)
        .tls(TestCertificates.server()).build().start();
    try {
      InetSocketAddress address = (InetSocketAddress) server.getListenSockets().get(0);
      ManagedChannel cold = channel(address);
      assertThat(call(cold)).isEqualTo("earlyData=false");
      assertThat(TernChannels.selectedTransport(cold)).isEqualTo("quic");
      cold.shutdown();
      assertThat(cold.awaitTermination(10, TimeUnit.SECONDS)).isTrue();

      ManagedChannel warm = channel(address);
      assertThat(call(warm)).as("first call of a channel that resumes").isEqualTo("earlyData=true");
      warm.shutdownNow();
      assertThat(warm.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    } finally {
      server.shutdownNow();
      assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  private static ManagedChannel channel(InetSocketAddress address) {
    return TernChannelBuilder.forAddress(address).addTransportProvider(new QuicTransportProvider())
        .transports("quic").overrideAuthority("localhost:" + address.getPort())
        .tls(TestCertificates.client()).build();
  }

  private static String call(ManagedChannel channel) {
    return ClientCalls.blockingUnaryCall(channel, EARLY, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), "hi");
  }
}
