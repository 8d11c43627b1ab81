package dev.tern.rpc.resilience;

import dev.tern.rpc.TernServerBuilder;
import io.grpc.Context;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.UnaryOperator;

/**
 * A real Tern server whose one method, {@code test.Scripted/Call} (not idempotent), answers each
 * attempt as a script says, and counts, per request key, how many attempts arrived and how many
 * the server processed (the counter that proves no call ran twice).
 */
final class ScriptedServer implements AutoCloseable {
  static final MethodDescriptor.Marshaller<String> UTF8 = new MethodDescriptor.Marshaller<>() {
    @Override
    public InputStream stream(String value) {
      return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String parse(InputStream stream) {
      try {
        return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  };

  static final MethodDescriptor<String, String> CALL = MethodDescriptor.<String, String>newBuilder()
      .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName("test.Scripted/Call")
      .setRequestMarshaller(UTF8).setResponseMarshaller(UTF8).build();

  /**
   * Client streaming: the script, asked with the first message as the key, refuses the attempt at
   * once or lets it go on; at the half-close the server answers every message joined.
   */
  static final MethodDescriptor<String, String> COLLECT = CALL.toBuilder()
      .setType(MethodDescriptor.MethodType.CLIENT_STREAMING).setFullMethodName("test.Scripted/Collect").build();

  /** What each {@code Collect} attempt that reached its half-close received, joined. */
  final List<String> collected = new CopyOnWriteArrayList<>();

  /**
   * How the server answers one attempt.
   *
   * @param status the status it closes with
   * @param processed whether it counts as processed (the method's side effect happened)
   * @param pushback the {@code grpc-retry-pushback-ms} trailer, or null
   * @param headersFirst whether it sends response headers before a failing close
   * @param delayMillis how long it waits before answering; negative: never answers
   */
  record Reply(Status status, boolean processed, String pushback, boolean headersFirst, long delayMillis) {
    static Reply ok() {
      return new Reply(Status.OK, true, null, false, 0);
    }

    /** A failure before processing (what a retry policy's codes promise). */
    static Reply refused(Status.Code code) {
      return new Reply(code.toStatus().withDescription("scripted"), false, null, false, 0);
    }

    Reply withPushback(String ms) {
      return new Reply(status, processed, ms, headersFirst, delayMillis);
    }

    Reply delayed(long millis) {
      return new Reply(status, processed, pushback, headersFirst, millis);
    }
  }

  final Map<String, AtomicInteger> arrivals = new ConcurrentHashMap<>();
  final Map<String, AtomicInteger> processed = new ConcurrentHashMap<>();
  final Map<String, List<Long>> arrivalNanos = new ConcurrentHashMap<>();
  final Map<String, List<String>> previousAttempts = new ConcurrentHashMap<>();
  final Map<String, List<Integer>> cancelledAttempts = new ConcurrentHashMap<>();
  /** (key, attempt number from 1) to the reply. */
  volatile BiFunction<String, Integer, Reply> script = (k, n) -> Reply.ok();
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
  final Server server;

  /** A server on {@code configure}'s listen addresses (and TLS, if it adds it). */
  ScriptedServer(UnaryOperator<TernServerBuilder> configure) throws IOException {
    server = configure.apply(TernServerBuilder.create().addService(definition())).build().start();
  }

  int port() {
    return server.getPort();
  }

  int arrivals(String key) {
    AtomicInteger n = arrivals.get(key);
    return n == null ? 0 : n.get();
  }

  int processed(String key) {
    AtomicInteger n = processed.get(key);
    return n == null ? 0 : n.get();
  }

  private ServerServiceDefinition definition() {
    ServerCallHandler<String, String> handler = (call, headers) -> {
      call.request(1);
      String previous = headers.get(RetryingCall.PREVIOUS_ATTEMPTS);
      return new ServerCall.Listener<>() {
        @Override
        public void onMessage(String key) {
          int n = arrivals.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
          arrivalNanos.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>()).add(System.nanoTime());
          previousAttempts.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>()).add(String.valueOf(previous));
          Context.current().addListener(c -> cancelledAttempts.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>())
              .add(n), Runnable::run);
          Reply r = script.apply(key, n);
          if (r.delayMillis() < 0) {
            return; // never answers: the client's timeout or cancel ends it
          }
          Runnable answer = () -> answer(call, key, r);
          if (r.delayMillis() == 0) {
            answer.run();
          } else {
            timer.schedule(answer, r.delayMillis(), TimeUnit.MILLISECONDS);
          }
        }
      };
    };
    ServerCallHandler<String, String> collect = (call, headers) -> {
      call.request(Integer.MAX_VALUE);
      StringBuilder joined = new StringBuilder();
      return new ServerCall.Listener<>() {
        private Reply reply;

        @Override
        public void onMessage(String m) {
          if (reply == null) {
            int n = arrivals.computeIfAbsent(m, k -> new AtomicInteger()).incrementAndGet();
            reply = script.apply(m, n);
            if (!reply.status().isOk()) {
              answer(call, m, reply); // refused at its first message, before the half-close
              return;
            }
          }
          joined.append(m);
        }

        @Override
        public void onHalfClose() {
          if (reply != null && reply.status().isOk()) {
            collected.add(joined.toString());
            answer(call, joined.toString(), reply);
          }
        }
      };
    };
    return ServerServiceDefinition.builder("test.Scripted").addMethod(CALL, handler).addMethod(COLLECT, collect)
        .build();
  }

  private void answer(ServerCall<String, String> call, String key, Reply r) {
    if (call.isCancelled()) {
      return;
    }
    if (r.processed()) {
      processed.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
    }
    Metadata trailers = new Metadata();
    if (r.pushback() != null) {
      trailers.put(RetryingCall.PUSHBACK, r.pushback());
    }
    if (r.status().isOk()) {
      call.sendHeaders(new Metadata());
      call.sendMessage(key);
    } else if (r.headersFirst()) {
      call.sendHeaders(new Metadata());
    }
    call.close(r.status(), trailers);
  }

  @Override
  public void close() throws InterruptedException {
    server.shutdownNow();
    server.awaitTermination(10, TimeUnit.SECONDS);
    timer.shutdownNow();
  }
}
