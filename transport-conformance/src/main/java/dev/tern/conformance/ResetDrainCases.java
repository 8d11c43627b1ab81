package dev.tern.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.common.util.concurrent.ListenableFuture;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A client whose calls are cancelled together past a server's rapid-reset limit, as a deadline or
 * cancel storm makes them: the server drains the connection instead of cutting it, so the client's
 * other calls (a unary call in flight, a chat) end normally and a new call goes to a new
 * connection. One service for every transport's test; the server and channel are the test's,
 * with the limit it sets.
 */
public final class ResetDrainCases {
  public static final MethodDescriptor<String, String> ECHO =
      Utf8.method("test.Drain/Echo", MethodDescriptor.MethodType.UNARY);
  /** A unary call the server answers when the test says ({@link #held}). */
  public static final MethodDescriptor<String, String> HOLD =
      Utf8.method("test.Drain/Hold", MethodDescriptor.MethodType.UNARY);
  /** A unary call the server never answers; each releases a permit of {@link #hanging}. */
  public static final MethodDescriptor<String, String> HANG =
      Utf8.method("test.Drain/Hang", MethodDescriptor.MethodType.UNARY);
  /** Echoes each message; ends when the client does. */
  public static final MethodDescriptor<String, String> CHAT =
      Utf8.method("test.Drain/Chat", MethodDescriptor.MethodType.BIDI_STREAMING);
  /**
   * {@link #DOWNLOAD_MESSAGES} messages of {@link #DOWNLOAD_MESSAGE_CHARS}: the first half at once,
   * the rest once {@link #downloadGate} opens.
   */
  public static final MethodDescriptor<String, String> DOWNLOAD =
      Utf8.method("test.Drain/Download", MethodDescriptor.MethodType.SERVER_STREAMING);
  public static final int DOWNLOAD_MESSAGES = 256;
  public static final int DOWNLOAD_MESSAGE_CHARS = 32 * 1024;

  /** The answers of the {@link #HOLD} calls that reached the server. */
  public final BlockingQueue<StreamObserver<String>> held = new LinkedBlockingQueue<>();
  /** A permit per {@link #HANG} call that reached the server. */
  public final Semaphore hanging = new Semaphore(0);
  /** Lets {@link #DOWNLOAD} send its second half. */
  public final CountDownLatch downloadGate = new CountDownLatch(1);

  /** The service, bound to this object's queue, semaphore and gate. */
  public ServerServiceDefinition service() {
    String block = "x".repeat(DOWNLOAD_MESSAGE_CHARS);
    return ServerServiceDefinition.builder("test.Drain")
        .addMethod(ECHO, ServerCalls.asyncUnaryCall((request, response) -> {
          response.onNext(request);
          response.onCompleted();
        }))
        .addMethod(HOLD, ServerCalls.asyncUnaryCall((request, response) -> held.add(response)))
        .addMethod(HANG, ServerCalls.asyncUnaryCall((request, response) -> hanging.release()))
        .addMethod(CHAT, ServerCalls.asyncBidiStreamingCall(response -> new StreamObserver<String>() {
          @Override public void onNext(String value) {
            response.onNext(value);
          }

          @Override public void onError(Throwable t) {}

          @Override public void onCompleted() {
            response.onCompleted();
          }
        }))
        .addMethod(DOWNLOAD, ServerCalls.asyncServerStreamingCall((request, response) -> {
          Thread sender = new Thread(() -> {
            try {
              for (int i = 0; i < DOWNLOAD_MESSAGES; i++) {
                if (i == DOWNLOAD_MESSAGES / 2) {
                  downloadGate.await();
                }
                response.onNext(block);
              }
              response.onCompleted();
            } catch (InterruptedException | RuntimeException e) {
              response.onError(e);
            }
          }, "drain-download");
          sender.setDaemon(true);
          sender.start();
        }))
        .build();
  }

  /**
   * Over {@code channel}, to a server with this service whose reset limit is 20 (its window long
   * enough for the test): a call in flight and a chat, then 25 calls cancelled once each reached
   * the server. Checks that {@code limitPassed} (the server's count of connections past the
   * limit) becomes 1, that the call in flight is still running and then ends with its answer,
   * that a new call works, and that the chat still echoes both ways and ends normally.
   */
  public void callsInFlightSurviveTheLimit(Channel channel, LongSupplier limitPassed) throws Exception {
    ListenableFuture<String> inFlight = ClientCalls.futureUnaryCall(
        channel.newCall(HOLD, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS)), "held");
    StreamObserver<String> answer = held.poll(10, TimeUnit.SECONDS);
    assertThat(answer).as("the held call reached the server").isNotNull();
    Chat chat = new Chat(channel, 30);
    chat.out.onNext("before");
    assertThat(chat.echoes.poll(10, TimeUnit.SECONDS)).isEqualTo("before");
    for (int i = 0; i < 25; i++) {
      ListenableFuture<String> f = ClientCalls.futureUnaryCall(channel.newCall(HANG, CallOptions.DEFAULT), "x");
      assertThat(hanging.tryAcquire(10, TimeUnit.SECONDS)).as("call %d reached the server", i).isTrue();
      f.cancel(true); // the transport's reset of the stream
    }
    awaitLimitPassed(limitPassed);
    assertStillRunning(inFlight, "the call in flight");
    assertThat(ClientCalls.blockingUnaryCall(channel, ECHO, CallOptions.DEFAULT.withDeadlineAfter(20,
        TimeUnit.SECONDS), "beside")).as("a new call, on a new connection").isEqualTo("beside");
    answer.onNext("answered");
    answer.onCompleted();
    assertThat(inFlight.get(10, TimeUnit.SECONDS)).isEqualTo("answered");
    chat.out.onNext("after");
    assertThat(chat.echoes.poll(10, TimeUnit.SECONDS)).as("an echo on the drained connection").isEqualTo("after");
    chat.out.onCompleted();
    assertThat(chat.end.get(10, TimeUnit.SECONDS)).as("the chat's end").isEqualTo(Status.OK);
  }

  /** Waits (10 s at most) until {@code limitPassed} says one connection passed the limit. */
  public static void awaitLimitPassed(LongSupplier limitPassed) {
    await("the reset limit passed").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10))
        .until(() -> limitPassed.getAsLong() > 0);
    assertThat(limitPassed.getAsLong()).as("connections past the limit").isEqualTo(1);
  }

  /** Fails, naming its status, if {@code call} has ended. */
  public static void assertStillRunning(ListenableFuture<?> call, String what) throws InterruptedException {
    if (call.isDone()) {
      try {
        call.get();
      } catch (ExecutionException e) {
        throw new AssertionError(what + " failed: " + Status.fromThrowable(e), e);
      }
      throw new AssertionError(what + " ended");
    }
  }

  /** A client's side of a {@link #CHAT} call: what it sends, the echoes, the end. */
  public static final class Chat {
    public final BlockingQueue<String> echoes = new LinkedBlockingQueue<>();
    public final CompletableFuture<Status> end = new CompletableFuture<>();
    public final StreamObserver<String> out;

    /** Opens a chat on {@code channel} with a deadline of {@code deadlineSeconds}. */
    public Chat(Channel channel, int deadlineSeconds) {
      out = ClientCalls.asyncBidiStreamingCall(
          channel.newCall(CHAT, CallOptions.DEFAULT.withDeadlineAfter(deadlineSeconds, TimeUnit.SECONDS)),
          new StreamObserver<String>() {
            @Override public void onNext(String value) {
              echoes.add(value);
            }

            @Override public void onError(Throwable t) {
              end.complete(Status.fromThrowable(t));
            }

            @Override public void onCompleted() {
              end.complete(Status.OK);
            }
          });
    }
  }
}
