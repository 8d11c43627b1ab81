package dev.tern.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.rpc.inprocess.InProcessAddress;
import dev.tern.rpc.inprocess.InProcessTransportProvider;
import dev.tern.rpc.metrics.TernMetrics;
import dev.tern.rpc.metrics.TransportMetrics;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The call layer's counts ({@link TernMetrics}) over the in-process transport: each kind of call
 * end, a client's cancel, connections and handshakes, bytes, on both sides; and a channel's calls
 * that never reached a transport.
 */
@Timeout(30)
class MetricsCallLayerTest {
  private final List<Server> servers = new ArrayList<>();
  private final List<ManagedChannel> channels = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    for (ManagedChannel c : channels) {
      c.shutdownNow();
      assertThat(c.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
    for (Server s : servers) {
      s.shutdownNow();
      assertThat(s.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
  }

  private static final MethodDescriptor<String, String> MISSING = TestMethods.method("Missing",
      MethodDescriptor.MethodType.UNARY);

  @Test
  void everyCallEndConnectionAndByteIsCountedOnBothSides() throws Exception {
    TernMetrics metrics = TernMetrics.create();
    List<String> added = new CopyOnWriteArrayList<>();
    metrics.addListener(new TernMetrics.Listener() {
      @Override public void transportAdded(TransportMetrics m) {
        added.add(m.side().tag() + "/" + m.scope() + "/" + m.transport());
      }

      @Override public void statusCodeAdded(TransportMetrics m, Status.Code code) {
        added.add(m.side().tag() + " " + code);
      }
    });
    InProcessAddress address = new InProcessAddress("metrics-" + UUID.randomUUID());
    Server server = TernServerBuilder.create().addTransportProvider(new InProcessTransportProvider())
        .listen(InProcessTransportProvider.NAME, address).addService(TestMethods.service())
        .metrics(metrics, "echo-server").build().start();
    servers.add(server);
    ManagedChannel channel = TernChannelBuilder.forAddress(address).addTransportProvider(new InProcessTransportProvider())
        .transports(InProcessTransportProvider.NAME).usePlaintext().metrics(metrics, "echo-channel").build();
    channels.add(channel);

    for (int i = 0; i < 5; i++) {
      assertThat(ClientCalls.blockingUnaryCall(channel, TestMethods.UNARY, CallOptions.DEFAULT, "hello " + i))
          .isEqualTo("hello " + i);
    }
    assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(channel, MISSING, CallOptions.DEFAULT, "x"))
        .isInstanceOf(StatusRuntimeException.class).hasMessageContaining("UNIMPLEMENTED");
    // A call the server never answers, cancelled by the client: the server sees its stream reset.
    ClientCall<String, String> slow = channel.newCall(TestMethods.SLOW, CallOptions.DEFAULT);
    CompletableFuture<Status> slowClosed = new CompletableFuture<>();
    slow.start(new ClientCall.Listener<String>() {
      @Override public void onClose(Status status, Metadata trailers) {
        slowClosed.complete(status);
      }
    }, new Metadata());
    slow.sendMessage("wait");
    slow.halfClose();
    slow.request(1);

    TransportMetrics s = metrics.transport(TernMetrics.Side.SERVER, "echo-server", InProcessTransportProvider.NAME);
    TransportMetrics c = metrics.transport(TernMetrics.Side.CLIENT, "echo-channel", InProcessTransportProvider.NAME);
    await(() -> s.activeCalls() == 1);
    assertThat(c.activeCalls()).isEqualTo(1);
    slow.cancel("enough", null);
    assertThat(slowClosed.get(5, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.CANCELLED);
    await(() -> s.activeCalls() == 0);

    assertThat(s.callsStarted()).isEqualTo(7);
    assertThat(s.callsFinished(Status.Code.OK)).isEqualTo(5);
    assertThat(s.callsFinished(Status.Code.UNIMPLEMENTED)).isEqualTo(1);
    assertThat(s.callsFinished(Status.Code.CANCELLED)).isEqualTo(1);
    assertThat(s.streamsReset()).isEqualTo(1);
    assertThat(c.callsStarted()).isEqualTo(7);
    assertThat(c.callsFinished(Status.Code.OK)).isEqualTo(5);
    assertThat(c.callsFinished(Status.Code.UNIMPLEMENTED)).isEqualTo(1);
    assertThat(c.callsFinished(Status.Code.CANCELLED)).isEqualTo(1);
    assertThat(c.activeCalls()).isZero();

    // One connection each way, no handshake left half-open.
    assertThat(s.connections()).isEqualTo(1);
    assertThat(s.handshakesSucceeded()).isEqualTo(1);
    assertThat(s.handshakesInProgress()).isZero();
    assertThat(c.connections()).isEqualTo(1);
    assertThat(c.handshakesStarted()).isEqualTo(1);
    assertThat(c.handshakesInProgress()).isZero();

    // The five echoed requests, both ways: what one side sent the other received.
    assertThat(c.bytesSent()).isGreaterThanOrEqualTo(5 * "hello 0".length());
    assertThat(s.bytesReceived()).isEqualTo(c.bytesSent());
    assertThat(s.bytesSent()).isEqualTo(c.bytesReceived());
    assertThat(c.bytesReceived()).isGreaterThanOrEqualTo(5 * "hello 0".length());

    assertThat(added).contains("server/echo-server/inprocess", "client/echo-channel/inprocess",
        "server OK", "server UNIMPLEMENTED", "server CANCELLED", "client OK");
    assertThat(added.stream().filter("server OK"::equals).count()).isEqualTo(1);

    // Closing the channel ends the connection on both sides.
    channel.shutdown();
    assertThat(channel.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    await(() -> s.connections() == 0);
    assertThat(c.connections()).isZero();
    assertThat(s.connectionsOpened()).isEqualTo(1);
  }

  @Test
  void aCallThatNeverReachesATransportIsCountedUnderNone() throws Exception {
    TernMetrics metrics = TernMetrics.create();
    // No server has this name: every connect attempt fails.
    InProcessAddress nowhere = new InProcessAddress("metrics-nowhere-" + UUID.randomUUID());
    ManagedChannel channel = TernChannelBuilder.forAddress(nowhere).addTransportProvider(new InProcessTransportProvider())
        .transports(InProcessTransportProvider.NAME).usePlaintext().metrics(metrics).build();
    channels.add(channel);
    assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(channel, TestMethods.UNARY,
        CallOptions.DEFAULT.withDeadlineAfter(200, TimeUnit.MILLISECONDS), "x"))
        .isInstanceOf(StatusRuntimeException.class);
    TransportMetrics none = metrics.transports().stream().filter(m -> m.transport().equals("none")).findFirst()
        .orElseThrow(() -> new AssertionError("no 'none' counters in " + metrics));
    assertThat(none.side()).isEqualTo(TernMetrics.Side.CLIENT);
    assertThat(none.callsStarted()).isEqualTo(1);
    assertThat(none.callsFinished()).isEqualTo(1);
    assertThat(none.activeCalls()).isZero();
    TransportMetrics tried = metrics.transport(TernMetrics.Side.CLIENT, none.scope(), InProcessTransportProvider.NAME);
    assertThat(tried.handshakesStarted()).isGreaterThanOrEqualTo(1);
    await(() -> tried.handshakesInProgress() == 0);
    assertThat(tried.handshakesFailed()).isEqualTo(tried.handshakesStarted());
    assertThat(tried.connections()).isZero();
    assertThat(tried.callsStarted()).isZero();
  }

  @Test
  void refusalReasonsAreBounded() {
    TernMetrics metrics = TernMetrics.create();
    List<String> reasons = new CopyOnWriteArrayList<>();
    metrics.addListener(new TernMetrics.Listener() {
      @Override public void transportAdded(TransportMetrics m) {}

      @Override public void refusalReasonAdded(TransportMetrics m, String reason) {
        reasons.add(reason);
      }
    });
    TransportMetrics m = metrics.transport(TernMetrics.Side.SERVER, "s", "udp");
    for (int i = 0; i < 1000; i++) {
      m.refused("reason-" + i);
    }
    m.refused("reason-0");
    assertThat(m.refusals()).hasSize(32);
    assertThat(m.refusals("reason-0")).isEqualTo(2);
    assertThat(m.refusals(dev.tern.rpc.metrics.TransportMetrics.OTHER_REASON)).isEqualTo(1000 - 31);
    assertThat(reasons).hasSize(32).contains("other");
    assertThat(metrics.transport(TernMetrics.Side.SERVER, "s", "udp")).isSameAs(m);
  }

  private static void await(BooleanSupplier condition) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("condition not met within 5 s");
      }
      Thread.sleep(5);
    }
  }
}
