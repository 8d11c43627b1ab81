package dev.tern.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.conformance.TestCertificates;
import dev.tern.conformance.Utf8;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.transport.quic.QuicTransportOptions;
import dev.tern.transport.quic.QuicTransportProvider;
import dev.tern.transport.udp.rpc.UdpTransportOptions;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Keep-alive as grpc-java does it: a call that stays quiet for 60 s while its client pings every
 * 10 s (grpc-java's shortest interval) survives on a TCP server that permits pings that often, a
 * Tern server and a stock grpc-java one alike; a Tern server left at grpc-java's default (pings no
 * more often than every 5 minutes) polices the same pings with GOAWAY {@code too_many_pings},
 * which shows they are really sent. Over QUIC, whose connections close after their idle timeout
 * (20 s here) when nothing crosses, the same call survives with 10 s keep-alive probes and is cut
 * without them; over Tern's UDP protocol likewise, with 10 s PINGs and with keep-alive turned off
 * (an interval of 1000 days or more, as in grpc-java), its server's own keep-alive off too so that
 * only the client's PINGs keep the call. All run side by side, so the test takes one minute.
 */
class KeepAliveTest {
  private static final long QUIET_MILLIS = 60_000;
  private static final MethodDescriptor.Marshaller<String> UTF8 = Utf8.MARSHALLER;
  /** Answers after the number of milliseconds the request names, sending nothing before. */
  private static final MethodDescriptor<String, String> QUIET = MethodDescriptor.<String, String>newBuilder()
      .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName("tern.test.KeepAlive/Quiet")
      .setRequestMarshaller(UTF8).setResponseMarshaller(UTF8).build();

  private static final TestCertificates CERTS = TestCertificates.generate();
  private static final byte[] UDP_SERVER_KEY = UdpTransportOptions.newServerKey();
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
  private final List<Server> servers = new ArrayList<>();
  private final List<ManagedChannel> channels = new ArrayList<>();

  private ServerServiceDefinition service() {
    return ServerServiceDefinition.builder("tern.test.KeepAlive")
        .addMethod(QUIET, ServerCalls.asyncUnaryCall((request, response) ->
            timer.schedule(() -> {
              response.onNext("answered after " + request + " ms");
              response.onCompleted();
            }, Long.parseLong(request), TimeUnit.MILLISECONDS)))
        .build();
  }

  private int started(Server server) throws IOException {
    servers.add(server.start());
    return ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
  }

  private CompletableFuture<String> quietCall(int port) {
    ManagedChannel channel = TernChannelBuilder.forAddress("127.0.0.1", port).transports("tcp").usePlaintext()
        .keepAliveTime(10, TimeUnit.SECONDS).keepAliveTimeout(5, TimeUnit.SECONDS).build();
    channels.add(channel);
    return CompletableFuture.supplyAsync(() -> ClientCalls.blockingUnaryCall(channel, QUIET,
        CallOptions.DEFAULT.withDeadlineAfter(QUIET_MILLIS + 30_000, TimeUnit.MILLISECONDS),
        Long.toString(QUIET_MILLIS)));
  }

  private CompletableFuture<String> quietQuicCall(int port, long keepAliveMillis) {
    QuicTransportProvider quic = new QuicTransportProvider(TransportOptions.defaults()
        .with(QuicTransportOptions.MAX_IDLE_TIMEOUT_MILLIS, 20_000L));
    ManagedChannel channel = TernChannelBuilder.forAddress("localhost", port).addTransportProvider(quic)
        .transports("quic").tls(CERTS.client())
        .keepAliveTime(keepAliveMillis, TimeUnit.MILLISECONDS).keepAliveTimeout(5, TimeUnit.SECONDS).build();
    channels.add(channel);
    return CompletableFuture.supplyAsync(() -> ClientCalls.blockingUnaryCall(channel, QUIET,
        CallOptions.DEFAULT.withDeadlineAfter(QUIET_MILLIS + 30_000, TimeUnit.MILLISECONDS),
        Long.toString(QUIET_MILLIS)));
  }

  private CompletableFuture<String> quietUdpCall(int port, long keepAliveMillis) {
    ManagedChannel channel = TernChannelBuilder.forAddress("127.0.0.1", port).transports("udp")
        .usePlaintext()
        .transportOption(UdpTransportOptions.PINNED_SERVER_KEY, UdpTransportOptions.publicKeyOf(UDP_SERVER_KEY))
        .transportOption(UdpTransportOptions.MAX_IDLE_TIMEOUT_MILLIS, 20_000L)
        .keepAliveTime(keepAliveMillis, TimeUnit.MILLISECONDS).keepAliveTimeout(5, TimeUnit.SECONDS).build();
    channels.add(channel);
    return CompletableFuture.supplyAsync(() -> ClientCalls.blockingUnaryCall(channel, QUIET,
        CallOptions.DEFAULT.withDeadlineAfter(QUIET_MILLIS + 30_000, TimeUnit.MILLISECONDS),
        Long.toString(QUIET_MILLIS)));
  }

  @Test
  @Timeout(120)
  void aQuietCallSurvivesWherePingsArePermittedAndIsPolicedWhereNot() throws Exception {
    int permissiveTern = started(TernServerBuilder.create().listen("tcp", 0).addService(service())
        .permitKeepAliveTime(5, TimeUnit.SECONDS).build());
    int permissiveStock = started(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(service()).permitKeepAliveTime(5, TimeUnit.SECONDS).build());
    int defaultTern = started(TernServerBuilder.create().listen("tcp", 0).addService(service()).build());
    int quicTern = started(TernServerBuilder.create().listen("quic", new InetSocketAddress("127.0.0.1", 0))
        .addService(service()).tls(CERTS.server()).build());
    int udpTern = started(TernServerBuilder.create().listen("udp", new InetSocketAddress("127.0.0.1", 0))
        .addService(service()).transportOption(UdpTransportOptions.SERVER_STATIC_KEY, UDP_SERVER_KEY)
        .keepAliveTime(1000, TimeUnit.DAYS).build());

    CompletableFuture<String> onTern = quietCall(permissiveTern);
    CompletableFuture<String> onStock = quietCall(permissiveStock);
    CompletableFuture<String> policed = quietCall(defaultTern);
    CompletableFuture<String> onQuic = quietQuicCall(quicTern, 10_000);
    // An interval longer than the call: no probe is sent before the idle timeout.
    CompletableFuture<String> quicUnprobed = quietQuicCall(quicTern, TimeUnit.DAYS.toMillis(1));
    CompletableFuture<String> onUdp = quietUdpCall(udpTern, 10_000);
    // Keep-alive off: nothing crosses, and the 20 s idle timeout ends the call.
    CompletableFuture<String> udpUnprobed = quietUdpCall(udpTern, TimeUnit.DAYS.toMillis(1000));

    assertThat(onTern.get(100, TimeUnit.SECONDS)).isEqualTo("answered after 60000 ms");
    assertThat(onStock.get(100, TimeUnit.SECONDS)).isEqualTo("answered after 60000 ms");
    Throwable failure = policed.handle((ok, e) -> e).get(100, TimeUnit.SECONDS);
    assertThat(failure).as("the call on the server that permits pings every 5 minutes").isNotNull();
    Status status = Status.fromThrowable(failure);
    // grpc-java's client turns GOAWAY ENHANCE_YOUR_CALM into RESOURCE_EXHAUSTED, its debug data kept.
    assertThat(status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(status.getDescription()).contains("ENHANCE_YOUR_CALM").contains("too_many_pings");

    assertThat(onQuic.get(100, TimeUnit.SECONDS)).as("quic with 10 s probes").isEqualTo("answered after 60000 ms");
    Throwable cut = quicUnprobed.handle((ok, e) -> e).get(100, TimeUnit.SECONDS);
    assertThat(cut).as("the quic call without probes, past the 20 s idle timeout").isNotNull();
    assertThat(Status.fromThrowable(cut).getCode()).isEqualTo(Status.Code.UNAVAILABLE);

    assertThat(onUdp.get(100, TimeUnit.SECONDS)).as("udp with 10 s PINGs").isEqualTo("answered after 60000 ms");
    Throwable udpCut = udpUnprobed.handle((ok, e) -> e).get(100, TimeUnit.SECONDS);
    assertThat(udpCut).as("the udp call without keep-alive, past the 20 s idle timeout").isNotNull();
    Status udpStatus = Status.fromThrowable(udpCut);
    assertThat(udpStatus.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(udpStatus.getDescription()).contains("idle timeout");
  }

  @AfterEach
  void stop() throws InterruptedException {
    for (ManagedChannel c : channels) {
      c.shutdownNow();
      assertThat(c.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    for (Server s : servers) {
      s.shutdownNow();
      assertThat(s.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    timer.shutdownNow();
  }
}
