package dev.tern.transport.udp.rpc;

import java.time.Duration;
import static org.awaitility.Awaitility.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.ServerTransport;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.rpc.spi.TransportProvider;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntUnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every stream of a call is released once the call is over, however it ended: a storm of unary
 * calls over a real Tern server and channel on loopback, cancelled at once, cancelled a
 * millisecond or two later (some before their request's end was sent), given a 1 ms deadline, or
 * left to be answered, while the server answers some at once and some a little later. Once every
 * call has ended, the client transport, the server and both core connections hold no stream, and
 * the server's stream credit came back: more calls than its stream limit still complete. And
 * calls beyond the stream limit, which wait for a slot, each get their whole response.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class UdpStreamReleaseTest {
  private static final int CALLS = 2_000;
  /** Calls of the storm of 1 ms deadlines alone (its leak took thousands of calls to show). */
  private static final int DEADLINE_CALLS = 10_000;
  private static final int IN_FLIGHT = 256;
  /** The server's stream limit: a few streams above the storm's calls in flight. */
  private static final int STREAM_LIMIT = 300;

  private static final MethodDescriptor.Marshaller<String> UTF8 = dev.tern.conformance.Utf8.MARSHALLER;

  /** Answers its request, at once or up to 2 ms later (the request starts with how long). */
  private static final MethodDescriptor<String, String> ANSWER =
      MethodDescriptor.<String, String>newBuilder().setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName("release.Test/Answer").setRequestMarshaller(UTF8)
          .setResponseMarshaller(UTF8).build();

  private final ScheduledExecutorService timer = Executors.newScheduledThreadPool(2);
  private final RecordingProvider provider = new RecordingProvider();
  private Server server;
  private ManagedChannel channel;

  @AfterEach
  void tearDown() throws Exception {
    if (channel != null) {
      channel.shutdownNow();
      assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    if (server != null) {
      server.shutdownNow();
      assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    timer.shutdownNow();
  }

  @Test
  void cancelAndDeadlineStormsLeaveNoStreamBehind() throws Exception {
    start();
    Map<Status.Code, AtomicInteger> outcomes = storm(CALLS, i -> i % 7, new Random(7));
    // Every kind of ending happened (else the storm proves little).
    assertThat(outcomes).containsKeys(Status.Code.CANCELLED, Status.Code.DEADLINE_EXCEEDED,
        Status.Code.OK);
    assertNoStreamLeft("after the storm; outcomes " + outcomes);

    // Only 1 ms deadlines, each answer coming as its deadline expires: some calls are stopped
    // after their request was acknowledged, their answer and FIN come after that, and no
    // RESET_STREAM follows when the server had its FIN acknowledged before our STOP_SENDING came.
    outcomes = storm(DEADLINE_CALLS, i -> 3, new Random(8));
    assertNoStreamLeft("after the deadline storm; outcomes " + outcomes);

    // The server's stream credit (MAX_STREAMS) came back for every stream: more answered calls
    // than its stream limit go through on the same connection.
    assertThat(burst(2 * STREAM_LIMIT)).isEmpty();
    assertThat(provider.clients).hasSize(1);
  }

  /**
   * Calls beyond the server's stream limit wait for a slot and open as others close; each still
   * gets its whole response. A waiting call used to be opened inside the close of another's
   * stream, during that call's read of its last bytes, and its first read overwrote them: the
   * closing call then ended INTERNAL, "the stream ended inside a record".
   */
  @Test
  void callsWaitingForStreamCreditGetTheirWholeResponse() throws Exception {
    start();
    for (int round = 0; round < 3; round++) {
      assertThat(burst(CALLS)).as("round %d", round).isEmpty();
    }
    assertNoStreamLeft("after the bursts");
    assertThat(provider.clients).hasSize(1);
  }

  private void start() throws IOException {
    server = TernServerBuilder.create().addTransportProvider(provider)
        .listen(UdpTransportProvider.NAME, new InetSocketAddress("127.0.0.1", 0))
        .addService(service())
        .transportOption(UdpTransportOptions.SERVER_STATIC_KEY, Loopback.SERVER_KEY)
        .transportOption(TransportOptions.MAX_CONCURRENT_STREAMS, STREAM_LIMIT)
        .build().start();
    int port = ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
    channel = TernChannelBuilder.forAddress(new InetSocketAddress("127.0.0.1", port))
        .addTransportProvider(provider).transports(UdpTransportProvider.NAME).usePlaintext()
        .transportOption(UdpTransportOptions.PINNED_SERVER_KEY, Loopback.PIN).build();
  }

  /**
   * Waits (20 s at most) until the client transport, the server and both core connections hold
   * no stream, and fails naming what is left if they do not.
   */
  private void assertNoStreamLeft(String when) throws Exception {
    assertThat(provider.clients).hasSize(1);
    assertThat(provider.servers).hasSize(1);
    UdpClientTransport client = provider.clients.get(0);
    UdpServerTransport srv = provider.servers.get(0);
    await("no stream left " + when).atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20))
        .untilAsserted(() -> {
          assertThat(client.streamCounts().get(5, TimeUnit.SECONDS))
              .as("client {calls with a stream, waiting calls, core streams} %s", when).containsExactly(0, 0, 0);
          assertThat(srv.streamCounts().get(5, TimeUnit.SECONDS))
              .as("server {calls' streams, core streams} %s", when).containsExactly(0, 0);
        });
  }

  /**
   * Makes {@code calls} answered calls at once; returns what went wrong (a status other than OK,
   * or an answer other than the request), empty if nothing did.
   */
  private List<String> burst(int calls) throws InterruptedException {
    List<String> wrong = new CopyOnWriteArrayList<>();
    CountDownLatch done = new CountDownLatch(calls);
    for (int i = 0; i < calls; i++) {
      String request = "0 " + i;
      ClientCall<String, String> call = channel.newCall(ANSWER, CallOptions.DEFAULT);
      call.start(new ClientCall.Listener<String>() {
        private String answer;

        @Override
        public void onMessage(String message) {
          answer = message;
        }

        @Override
        public void onClose(Status status, Metadata trailers) {
          if (!status.isOk()) {
            wrong.add(request + ": " + status);
          } else if (!request.equals(answer)) {
            wrong.add(request + ": answered " + answer);
          }
          done.countDown();
        }
      }, new Metadata());
      call.request(1);
      call.sendMessage(request);
      call.halfClose();
    }
    assertThat(done.await(60, TimeUnit.SECONDS)).as("the burst's calls ended").isTrue();
    return wrong;
  }

  /**
   * Runs a storm of {@code calls} calls, {@link #IN_FLIGHT} at most at once, each of the kind
   * {@code kinds} gives its index: 0, cancelled at once; 1 and 2, cancelled as the answer comes (1
   * or 2 ms); 3 and 4, a 1 ms deadline, the answer coming as it expires; 5, cancelled 1-2 ms
   * after its message, its request's end never sent; 6, answered, at once or up to 2 ms later.
   * Returns how many calls ended with each status.
   */
  private Map<Status.Code, AtomicInteger> storm(int calls, IntUnaryOperator kinds, Random random)
      throws InterruptedException {
    Map<Status.Code, AtomicInteger> outcomes = new ConcurrentHashMap<>();
    Semaphore slots = new Semaphore(IN_FLIGHT);
    CountDownLatch done = new CountDownLatch(calls);
    for (int i = 0; i < calls; i++) {
      slots.acquire();
      int kind = kinds.applyAsInt(i);
      int serverDelayMs = kind == 1 || kind == 2 ? kind
          : kind == 3 || kind == 4 ? 1 : random.nextInt(3);
      CallOptions options = kind == 3 || kind == 4
          ? CallOptions.DEFAULT.withDeadlineAfter(1, TimeUnit.MILLISECONDS) : CallOptions.DEFAULT;
      ClientCall<String, String> call = channel.newCall(ANSWER, options);
      call.start(new ClientCall.Listener<String>() {
        @Override
        public void onClose(Status status, Metadata trailers) {
          outcomes.computeIfAbsent(status.getCode(), c -> new AtomicInteger()).incrementAndGet();
          slots.release();
          done.countDown();
        }
      }, new Metadata());
      call.request(1);
      call.sendMessage(Integer.toString(serverDelayMs));
      if (kind != 5) {
        call.halfClose();
      }
      if (kind == 0) {
        call.cancel("cancelled at once", null);
      } else if (kind == 1 || kind == 2) {
        timer.schedule(() -> call.cancel("cancelled later", null), kind, TimeUnit.MILLISECONDS);
      } else if (kind == 5) {
        // The server has read the request's message and waits for its end.
        timer.schedule(() -> call.cancel("cancelled before its end", null), 1 + i % 2,
            TimeUnit.MILLISECONDS);
      }
    }
    assertThat(done.await(60, TimeUnit.SECONDS)).as("every call of the storm ended").isTrue();
    return outcomes;
  }

  private ServerServiceDefinition service() {
    return ServerServiceDefinition.builder("release.Test")
        .addMethod(ANSWER, (call, headers) -> {
          call.request(1);
          return new ServerCall.Listener<String>() {
            private String request;

            @Override
            public void onMessage(String message) {
              request = message;
            }

            @Override
            public void onHalfClose() {
              int delayMs = Integer.parseInt(request.split(" ")[0]);
              if (delayMs == 0) {
                answer(call, request);
              } else {
                timer.schedule(() -> answer(call, request), delayMs, TimeUnit.MILLISECONDS);
              }
            }
          };
        })
        .build();
  }

  private static void answer(ServerCall<String, String> call, String request) {
    synchronized (call) {
      if (call.isCancelled()) {
        return;
      }
      try {
        call.sendHeaders(new Metadata());
        call.sendMessage(request);
        call.close(Status.OK, new Metadata());
      } catch (IllegalStateException cancelledMeanwhile) {
        // The call was cancelled between the check and the answer: nothing to answer.
      }
    }
  }

  /** The {@code udp} provider, keeping every transport it makes so the test can inspect them. */
  private static final class RecordingProvider implements TransportProvider {
    private final UdpTransportProvider udp = new UdpTransportProvider();
    final List<UdpClientTransport> clients = new CopyOnWriteArrayList<>();
    final List<UdpServerTransport> servers = new CopyOnWriteArrayList<>();

    @Override
    public String name() {
      return udp.name();
    }

    @Override
    public boolean isAvailable() {
      return udp.isAvailable();
    }

    @Override
    public String unavailableReason() {
      return udp.unavailableReason();
    }

    @Override
    public String unusableReason(TransportOptions options) {
      return udp.unusableReason(options);
    }

    @Override
    public TransportProvider.VersionHandshake versionHandshake() {
      return udp.versionHandshake();
    }

    @Override
    public ClientTransport newClientTransport(SocketAddress address, String authority,
        TransportOptions options) {
      UdpClientTransport t = (UdpClientTransport) udp.newClientTransport(address, authority,
          options);
      clients.add(t);
      return t;
    }

    @Override
    public ServerTransport newServerTransport(SocketAddress bindAddress,
        TransportOptions options) {
      UdpServerTransport t = (UdpServerTransport) udp.newServerTransport(bindAddress, options);
      servers.add(t);
      return t;
    }
  }
}
