package dev.tern.rpc.resilience;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.tern.conformance.DatagramRelay;
import dev.tern.conformance.TestCertificates;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TransportMemory;
import dev.tern.rpc.spi.ConnectionAttributes;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A server on a datagram transport (QUIC, then Tern's UDP) and TCP that stops receiving datagrams
 * mid-run, with a channel that names both and keeps calls of a non-idempotent method going from
 * four threads: the datagram transport's breaker opens, the calls move to TCP with no call failing
 * (their timed-out attempts retried by the policy), and they come back once the server receives
 * datagrams again. A server-side counter proves
 * that no call ran twice.
 */
@Timeout(120)
class CircuitBreakerTest {
  private static final TestCertificates CERTS = TestCertificates.generate();
  private final RecordingListener events = new RecordingListener();
  private final List<AutoCloseable> closeables = new ArrayList<>();
  /** Each finished call: its key, the transport that carried it, its status code. */
  private final List<String[]> finished = new CopyOnWriteArrayList<>();
  private final Map<String, String> failures = new ConcurrentHashMap<>();
  private volatile boolean running = true;

  @AfterEach
  void tearDown() throws Exception {
    running = false;
    for (AutoCloseable c : closeables) {
      c.close();
    }
  }

  private static int freeUdpPort() throws IOException {
    try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
      return s.getLocalPort();
    }
  }

  private static final byte[] UDP_KEY = dev.tern.transport.udp.rpc.UdpTransportOptions.newServerKey();

  /**
   * The relay on port P (UDP) in front of the server's {@code datagram} transport's port, and the
   * server's TCP on P too.
   */
  private DatagramRelay relayAndServer(ScriptedServer[] server, String datagram) throws Exception {
    for (int attempt = 0; ; attempt++) {
      int quicPort = freeUdpPort();
      DatagramRelay relay = new DatagramRelay(new InetSocketAddress("127.0.0.1", quicPort));
      try {
        server[0] = new ScriptedServer(b -> b.tls(CERTS.server())
            .transportOption(dev.tern.transport.udp.rpc.UdpTransportOptions.SERVER_STATIC_KEY, UDP_KEY)
            .listen(datagram, new InetSocketAddress("127.0.0.1", quicPort))
            .listen("tcp", new InetSocketAddress("127.0.0.1", relay.port())));
        closeables.add(server[0]);
        closeables.add(relay);
        return relay;
      } catch (IOException taken) {
        relay.close();
        if (attempt == 4) {
          throw taken;
        }
      }
    }
  }

  /** Records which transport carried each call (the committed attempt's). */
  private final class TransportRecorder implements ClientInterceptor {
    @Override
    public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
      return new ForwardingClientCall.SimpleForwardingClientCall<Q, R>(next.newCall(method, options)) {
        @Override
        public void start(Listener<R> listener, Metadata headers) {
          ClientCall<Q, R> call = delegate();
          super.start(new ForwardingClientCallListener.SimpleForwardingClientCallListener<R>(listener) {
            @Override
            public void onClose(Status status, Metadata trailers) {
              String transport = call.getAttributes().get(ConnectionAttributes.TRANSPORT);
              finished.add(new String[] {headers.get(KEY), String.valueOf(transport), status.getCode().name()});
              super.onClose(status, trailers);
            }
          }, headers);
        }
      };
    }
  }

  private static final Metadata.Key<String> KEY = Metadata.Key.of("test-key", Metadata.ASCII_STRING_MARSHALLER);

  private static void await(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        fail("timed out waiting until " + what);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
    }
  }

  private long countSince(int from, String transport) {
    return since(finished, from).stream().filter(f -> f[1].equals(transport) && f[2].equals("OK")).count();
  }

  /**
   * The elements added at or after {@code from}, read from one snapshot: a sublist of a
   * copy-on-write list taken while other threads add to it fails with a concurrent modification.
   */
  private static <T> List<T> since(List<T> list, int from) {
    List<T> snapshot = List.copyOf(list);
    return snapshot.subList(Math.min(from, snapshot.size()), snapshot.size());
  }

  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(strings = {"quic", "udp"})
  void aServerThatStopsReceivingDatagramsOpensTheBreakerAndCallsMoveToTcpAndBack(String datagram) throws Exception {
    ScriptedServer[] holder = new ScriptedServer[1];
    DatagramRelay relay = relayAndServer(holder, datagram);
    ScriptedServer server = holder[0];
    CircuitBreakerConfig breaker = CircuitBreakerConfig.custom()
        .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED).slidingWindowSize(10)
        .minimumNumberOfCalls(4).failureRateThreshold(50).waitDurationInOpenState(Duration.ofSeconds(2))
        .permittedNumberOfCallsInHalfOpenState(3).build();
    // UNAVAILABLE and a per-attempt timeout: here both mean the server never got the request.
    Map<String, Object> policy = Map.of("maxAttempts", 5, "initialBackoff", "0.05s", "maxBackoff", "0.2s",
        "backoffMultiplier", 2, "retryableStatusCodes", List.of("UNAVAILABLE"), "perAttemptRecvTimeout", "5s");
    ManagedChannel channel = TernChannelBuilder.forAddress("127.0.0.1", relay.port()).tls(CERTS.client())
        .transports(datagram, "tcp")
        .transportOption(dev.tern.transport.udp.rpc.UdpTransportOptions.PINNED_SERVER_KEY,
            dev.tern.transport.udp.rpc.UdpTransportOptions.publicKeyOf(UDP_KEY))
        .transportMemory(TransportMemory.builder().initialBrokenDuration(1, TimeUnit.SECONDS).build())
        .handshakeTimeout(3, TimeUnit.SECONDS)
        .defaultServiceConfig(Map.of("methodConfig", List.of(Map.of(
            "name", List.of(Map.of("service", "test.Scripted")), "retryPolicy", policy))))
        .callPolicyProvider(TernResilience.newBuilder().circuitBreaker(breaker).listener(events).build())
        .intercept(new TransportRecorder())
        .build();
    closeables.add(0, () -> {
      channel.shutdownNow();
      channel.awaitTermination(10, TimeUnit.SECONDS);
    });

    // Connected before the load starts: on a loaded machine a first connect can outlast the
    // per-attempt timeout, and a timed-out attempt that the server did receive would run twice.
    long readyBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (channel.getState(true) != io.grpc.ConnectivityState.READY && System.nanoTime() - readyBy < 0) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
    }
    assertThat(channel.getState(false)).isEqualTo(io.grpc.ConnectivityState.READY);

    List<Thread> workers = new ArrayList<>();
    for (int w = 0; w < 4; w++) {
      int worker = w;
      Thread t = new Thread(() -> {
        for (int n = 0; running; n++) {
          String key = worker + "-" + n;
          Metadata md = new Metadata();
          md.put(KEY, key);
          try {
            ClientCalls.blockingUnaryCall(io.grpc.ClientInterceptors.intercept(channel,
                io.grpc.stub.MetadataUtils.newAttachHeadersInterceptor(md)), ScriptedServer.CALL,
                CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS), key);
          } catch (StatusRuntimeException e) {
            failures.put(key, e.getStatus().toString());
          }
        }
      }, "caller-" + w);
      t.start();
      workers.add(t);
    }
    closeables.add(0, () -> {
      running = false;
      for (Thread t : workers) {
        t.join(40_000);
      }
    });

    await(() -> countSince(0, datagram) >= 20, "20 calls went over " + datagram);

    int beforeDrop = events.transitions.size();
    relay.mode(DatagramRelay.Mode.DROP_UPSTREAM);
    await(() -> since(events.transitions, beforeDrop).contains(datagram + " OPEN"),
        datagram + "'s breaker opened");
    int atOpen = finished.size();
    await(() -> countSince(atOpen, "tcp") >= 20, "20 calls went over TCP after the breaker opened");
    assertThat(relay.dropped()).isPositive();

    int beforeRecovery = events.transitions.size();
    relay.mode(DatagramRelay.Mode.FORWARD);
    await(() -> since(events.transitions, beforeRecovery).contains(datagram + " CLOSED"),
        datagram + "'s breaker closed again");
    int atClose = finished.size();
    await(() -> countSince(atClose, datagram) >= 20, "20 calls went over " + datagram + " again");

    running = false;
    for (Thread t : workers) {
      t.join(40_000);
    }
    System.out.printf("breaker: %s; %d calls, %d over tcp; %d datagrams dropped%n", events.transitions,
        finished.size(), finished.stream().filter(f -> f[1].equals("tcp")).count(), relay.dropped());
    assertThat(failures).as("no call failed: each failed attempt was retried").isEmpty();
    assertThat(events.transitions).containsSubsequence(datagram + " OPEN", datagram + " HALF_OPEN", datagram + " CLOSED");
    for (String[] f : finished) {
      assertThat(server.processed(f[0])).as("call %s ran once", f[0]).isEqualTo(1);
    }
  }
}
