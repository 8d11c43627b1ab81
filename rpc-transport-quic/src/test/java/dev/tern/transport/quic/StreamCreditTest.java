package dev.tern.transport.quic;

import static dev.tern.transport.quic.Harness.PROVIDER;
import static dev.tern.transport.quic.Harness.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.RequestHeaders;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A call beyond the server's stream limit (RFC 9000 §4.6, MAX_STREAMS) waits on the client for
 * stream credit, as a call over TCP waits for a slot under MAX_CONCURRENT_STREAMS, instead of
 * failing UNAVAILABLE; a waiting call that is cancelled or runs out of time leaves the queue.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class StreamCreditTest {
  private static final MethodDescriptor<String, String> HELD = EndToEndZeroRttTest.method("test.Credit/Held", false);
  private static final MethodDescriptor<String, String> ECHO = EndToEndZeroRttTest.method("test.Credit/Echo", false);

  @Test
  void twelveHundredConcurrentCallsAgainstAThousandStreamLimitAllSucceed() throws Exception {
    int limit = 1000;
    int calls = 1200;
    List<StreamObserver<String>> held = new ArrayList<>();
    AtomicInteger arrived = new AtomicInteger();
    CompletableFuture<Integer> limitReached = new CompletableFuture<>();
    ServerServiceDefinition service = ServerServiceDefinition.builder("test.Credit")
        .addMethod(HELD, ServerCalls.asyncUnaryCall((request, response) -> {
          // The first 1,000 calls are held until all of them are open at once: the server's whole
          // limit in use, the other 200 waiting on the client. Later calls answer at once.
          List<StreamObserver<String>> release = List.of();
          synchronized (held) {
            int n = arrived.incrementAndGet();
            if (n <= limit) {
              held.add(response);
              if (n == limit) {
                release = new ArrayList<>(held);
                held.clear();
                limitReached.complete(n);
              }
            } else {
              release = List.of(response);
            }
          }
          for (StreamObserver<String> r : release) {
            r.onNext("ok");
            r.onCompleted();
          }
        }))
        .build();
    Server server = server(service, limit);
    ManagedChannel channel = channel(server);
    try {
      List<CompletableFuture<Status>> results = new ArrayList<>();
      for (int i = 0; i < calls; i++) {
        results.add(unary(channel, HELD, CallOptions.DEFAULT.withDeadlineAfter(120, TimeUnit.SECONDS)));
      }
      assertThat(limitReached.get(120, TimeUnit.SECONDS)).as("calls open at the server at once").isEqualTo(limit);
      Map<Status.Code, Integer> codes = codes(results);
      assertThat(codes).as("how the %d calls ended", calls).containsExactly(Map.entry(Status.Code.OK, calls));
      assertThat(arrived.get()).as("calls the server saw").isEqualTo(calls);
    } finally {
      close(channel, server);
    }
  }

  private final AtomicInteger arrivals = new AtomicInteger();

  @Test
  void tenThousandCallsWithAOneMillisecondDeadlineEndInTimeOrOkNeverUnavailable() throws Exception {
    ServerServiceDefinition service = ServerServiceDefinition.builder("test.Credit")
        .addMethod(ECHO, ServerCalls.asyncUnaryCall((request, response) -> {
          arrivals.incrementAndGet();
          response.onNext(request);
          response.onCompleted();
        }))
        .build();
    AtomicInteger started = new AtomicInteger();
    ServerInterceptor counting = new ServerInterceptor() {
      @Override
      public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(ServerCall<ReqT, RespT> call, Metadata headers,
          ServerCallHandler<ReqT, RespT> next) {
        started.incrementAndGet();
        return next.startCall(call, headers);
      }
    };
    Server server = server(ServerInterceptors.intercept(service, counting), 1000);
    ManagedChannel channel = channel(server);
    try {
      // The connection is up before the churn starts, so that no deadline runs out in its handshake.
      assertThat(ClientCalls.blockingUnaryCall(channel, ECHO, CallOptions.DEFAULT.withDeadlineAfter(10,
          TimeUnit.SECONDS), "warm")).isEqualTo("warm");
      Semaphore inFlight = new Semaphore(500);
      Map<Status.Code, AtomicInteger> counts = new ConcurrentHashMap<>();
      Map<Status.Code, String> examples = new ConcurrentHashMap<>();
      List<CompletableFuture<Status>> last = new ArrayList<>();
      AtomicInteger atServer = arrivals;
      atServer.set(0);
      started.set(0);
      for (int i = 0; i < 10_000; i++) {
        assertThat(inFlight.tryAcquire(30, TimeUnit.SECONDS)).as("a slot frees within 30 s (call %d)", i).isTrue();
        CompletableFuture<Status> f = unary(channel, ECHO, CallOptions.DEFAULT.withDeadlineAfter(1, TimeUnit.MILLISECONDS));
        f.whenComplete((s, e) -> {
          counts.computeIfAbsent(s.getCode(), c -> new AtomicInteger()).incrementAndGet();
          examples.putIfAbsent(s.getCode(), String.valueOf(s));
          inFlight.release();
        });
        if (i >= 9_500) {
          last.add(f);
        }
      }
      CompletableFuture.allOf(last.toArray(new CompletableFuture<?>[0])).get(60, TimeUnit.SECONDS);
      assertThat(inFlight.tryAcquire(500, 60, TimeUnit.SECONDS)).as("every call ended").isTrue();
      Map<Status.Code, Integer> ended = new EnumMap<>(Status.Code.class);
      counts.forEach((code, n) -> ended.put(code, n.get()));
      System.out.println("10,000 calls with a 1 ms deadline: " + ended + "; " + started.get() + " reached the server, " + atServer.get() + " its handler");
      assertThat(ended.keySet()).as("codes of the 10,000 calls %s, e.g. %s", ended, examples)
          .isSubsetOf(Status.Code.OK, Status.Code.DEADLINE_EXCEEDED);
      assertThat(ended.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(10_000);
      // The churn left the connection's credit whole: a call with time enough goes through.
      assertThat(ClientCalls.blockingUnaryCall(channel, ECHO, CallOptions.DEFAULT.withDeadlineAfter(10,
          TimeUnit.SECONDS), "after")).isEqualTo("after");
    } finally {
      close(channel, server);
    }
  }

  @Test
  void aCallCancelledWhileItWaitsForCreditLeavesTheQueueAndIsNeverSent() throws Exception {
    Harness.EchoServer server = new Harness.EchoServer(Harness.serverOptions()
        .with(TransportOptions.MAX_CONCURRENT_STREAMS, 1));
    Harness.TransportEvents events = new Harness.TransportEvents();
    ClientTransport client = PROVIDER.newClientTransport(new InetSocketAddress("127.0.0.1", server.port()),
        "localhost:" + server.port(), Harness.clientOptions());
    client.start(events);
    try {
      events.ready.get(10, TimeUnit.SECONDS);
      Harness.Call open = Harness.call(client, RequestHeaders.builder("test.Echo/Open").build());
      open.stream.request(2);
      open.stream.writeMessage(utf8("first"));
      open.stream.flush();
      assertThat(server.headers.poll(10, TimeUnit.SECONDS).fullMethodName()).isEqualTo("test.Echo/Open");

      // The server allows one stream, in use: these two wait for credit, longer than the backstop.
      Harness.Call cancelled = Harness.call(client, RequestHeaders.builder("test.Echo/Cancelled").build());
      cancelled.stream.writeMessage(utf8("never"));
      cancelled.stream.halfClose();
      Harness.Call next = Harness.call(client, RequestHeaders.builder("test.Echo/Next").build());
      next.stream.request(1);
      next.stream.writeMessage(utf8("second"));
      next.stream.halfClose();
      assertThat(server.headers.poll(10 * QuicClientTransport.CREDIT_RETRY_MILLIS, TimeUnit.MILLISECONDS))
          .as("a call past the server's limit at the server").isNull();
      assertThat(cancelled.status.isDone() || next.status.isDone()).as("a waiting call ended").isFalse();

      cancelled.stream.cancel(Status.CANCELLED.withDescription("the caller gave up"));
      assertThat(cancelled.status.get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.CANCELLED);

      // The open call ends; its credit goes to the next waiting call, not to the cancelled one.
      open.stream.halfClose();
      assertThat(open.status.get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
      assertThat(next.status.get(10, TimeUnit.SECONDS).getCode()).as("the next call").isEqualTo(Status.Code.OK);
      assertThat(next.messages).containsExactly("second");
      assertThat(server.headers.poll(10, TimeUnit.SECONDS).fullMethodName()).isEqualTo("test.Echo/Next");
      assertThat(server.headers).as("calls the server saw besides").isEmpty();
    } finally {
      client.shutdownNow(Status.CANCELLED.withDescription("test over"));
      server.transport.shutdownNow(Status.UNAVAILABLE);
      assertThat(server.terminated.await(10, TimeUnit.SECONDS)).as("server terminated").isTrue();
    }
  }

  @Test
  void aChurnOfCancelledCallsPastTheLimitGivesTheWholeCreditBack() throws Exception {
    int limit = 100;
    // 3,000 streams opened and reset at once is a rapid reset by construction: the server's limit on
    // it (RapidResetTest) is off here, where the point is that every reset gives its credit back.
    Harness.EchoServer server = new Harness.EchoServer(Harness.serverOptions()
        .with(TransportOptions.MAX_CONCURRENT_STREAMS, limit)
        .with(TransportOptions.MAX_RST_FRAMES_PER_WINDOW, 0));
    Harness.TransportEvents events = new Harness.TransportEvents();
    ClientTransport client = PROVIDER.newClientTransport(new InetSocketAddress("127.0.0.1", server.port()),
        "localhost:" + server.port(), Harness.clientOptions());
    client.start(events);
    try {
      events.ready.get(10, TimeUnit.SECONDS);
      // 3,000 calls, up to 300 at once against a limit of 100: most wait for credit; each is
      // cancelled at once, after its first message, or a little later, while open or still waiting.
      Semaphore inFlight = new Semaphore(300);
      Map<Status.Code, AtomicInteger> counts = new ConcurrentHashMap<>();
      java.util.concurrent.atomic.AtomicReference<Status> firstOther = new java.util.concurrent.atomic.AtomicReference<>();
      java.util.Random random = new java.util.Random(44487);
      for (int i = 0; i < 3000; i++) {
        assertThat(inFlight.tryAcquire(30, TimeUnit.SECONDS)).as("a slot frees within 30 s (call %d)", i).isTrue();
        Harness.Call c = Harness.call(client, RequestHeaders.builder("test.Echo/Churn").build());
        c.status.whenComplete((s, e) -> {
          counts.computeIfAbsent(s.getCode(), k -> new AtomicInteger()).incrementAndGet();
          if (s.getCode() != Status.Code.CANCELLED) {
            firstOther.compareAndSet(null, s);
          }
          inFlight.release();
        });
        int how = random.nextInt(3);
        if (how > 0) {
          c.stream.writeMessage(utf8("churn"));
          c.stream.flush();
        }
        if (how == 2) {
          Thread.sleep(0, 200_000);
        }
        c.stream.cancel(Status.CANCELLED.withDescription("churn"));
      }
      assertThat(inFlight.tryAcquire(300, 60, TimeUnit.SECONDS)).as("every churn call ended").isTrue();
      Map<Status.Code, Integer> ended = new EnumMap<>(Status.Code.class);
      counts.forEach((code, n) -> ended.put(code, n.get()));
      assertThat(ended).as("how the churn calls ended (the first not CANCELLED: %s)", firstOther.get())
          .containsExactly(Map.entry(Status.Code.CANCELLED, 3000));

      // The whole limit is usable again: 100 calls open at the server at once.
      server.headers.clear();
      List<Harness.Call> held = new ArrayList<>();
      for (int i = 0; i < limit; i++) {
        Harness.Call c = Harness.call(client, RequestHeaders.builder("test.Echo/Held").build());
        c.stream.request(1);
        c.stream.writeMessage(utf8("held-" + i));
        c.stream.flush();
        held.add(c);
      }
      for (int i = 0; i < limit; i++) {
        assertThat(server.headers.poll(30, TimeUnit.SECONDS)).as("held call %d at the server", i).isNotNull();
      }
      for (Harness.Call c : held) {
        c.stream.halfClose();
      }
      for (Harness.Call c : held) {
        assertThat(c.status.get(30, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
      }
    } finally {
      client.shutdownNow(Status.CANCELLED.withDescription("test over"));
      server.transport.shutdownNow(Status.UNAVAILABLE);
      assertThat(server.terminated.await(10, TimeUnit.SECONDS)).as("server terminated").isTrue();
    }
  }

  private static Server server(ServerServiceDefinition service, int maxStreams) throws java.io.IOException {
    return TernServerBuilder.create().listen("quic", new InetSocketAddress("127.0.0.1", 0)).addService(service)
        .transportOption(TransportOptions.MAX_CONCURRENT_STREAMS, maxStreams)
        .tls(TestCertificates.server()).build().start();
  }

  private static ManagedChannel channel(Server server) {
    InetSocketAddress address = (InetSocketAddress) server.getListenSockets().get(0);
    return TernChannelBuilder.forAddress(address).addTransportProvider(new QuicTransportProvider())
        .transports("quic").overrideAuthority("localhost:" + address.getPort())
        .tls(TestCertificates.client()).build();
  }

  /** One unary call; completes with its status (OK when it answered). */
  private static CompletableFuture<Status> unary(ManagedChannel channel, MethodDescriptor<String, String> method,
      CallOptions options) {
    CompletableFuture<Status> done = new CompletableFuture<>();
    ClientCalls.asyncUnaryCall(channel.newCall(method, options), "hi", new StreamObserver<String>() {
      @Override
      public void onNext(String value) {}

      @Override
      public void onError(Throwable t) {
        done.complete(Status.fromThrowable(t));
      }

      @Override
      public void onCompleted() {
        done.complete(Status.OK);
      }
    });
    return done;
  }

  private static Map<Status.Code, Integer> codes(List<CompletableFuture<Status>> results) throws Exception {
    Map<Status.Code, Integer> codes = new EnumMap<>(Status.Code.class);
    for (CompletableFuture<Status> f : results) {
      codes.merge(f.get(120, TimeUnit.SECONDS).getCode(), 1, Integer::sum);
    }
    return codes;
  }

  private static void close(ManagedChannel channel, Server server) throws InterruptedException {
    channel.shutdownNow();
    server.shutdownNow();
    assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).as("channel terminated").isTrue();
    assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).as("server terminated").isTrue();
  }
}
