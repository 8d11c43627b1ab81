package dev.tern.grpcinterop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.TernChannelBuilder;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.ServerBuilder;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.List;
import java.util.Map;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.rules.Timeout;

/**
 * Every one of grpc-java's interop cases over TCP with a retry policy on every method of the test
 * service (as grpc-java's {@code emptyUnaryWithRetriableStream} wants a retriable stream): with the
 * resilience module on the class path, each call is carried out by it, attempt by attempt, whatever
 * its kind (unary, streaming, cancelled, over its deadline, with large messages).
 */
public class TcpRetryInteropTest extends TcpInteropTest {
  /** Every case of the class together; each case also has the base class's own 90 s limit. */
  @ClassRule public static final Timeout CLASS_TIMEOUT = Timeout.seconds(300);

  /** grpc's retry policy for the whole test service: UNAVAILABLE retried up to 3 attempts. */
  static final Map<String, ?> RETRY_CONFIG = Map.of("methodConfig", List.of(Map.of(
      "name", List.of(Map.of("service", "grpc.testing.TestService")),
      "retryPolicy", Map.of("maxAttempts", 3, "initialBackoff", "0.01s", "maxBackoff", "0.1s",
          "backoffMultiplier", 2, "retryableStatusCodes", List.of("UNAVAILABLE")))));

  /** {@code grpc-previous-rpc-attempts}: absent on a call's first attempt. */
  private static final Metadata.Key<String> PREVIOUS_ATTEMPTS =
      Metadata.Key.of("grpc-previous-rpc-attempts", Metadata.ASCII_STRING_MARSHALLER);

  /**
   * In {@code emptyUnaryWithRetriableStream}, the server refuses the first attempt of every {@code
   * EmptyCall} with UNAVAILABLE before the service sees it: the case passes only if the call is
   * retried.
   */
  @Override
  protected ServerBuilder<?> getServerBuilder() {
    return super.getServerBuilder().intercept(new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
          ServerCallHandler<Q, R> next) {
        if (refuseFirstAttempts && headers.get(PREVIOUS_ATTEMPTS) == null
            && call.getMethodDescriptor().getFullMethodName().equals("grpc.testing.TestService/EmptyCall")) {
          refusedFirstAttempts.incrementAndGet();
          call.close(Status.UNAVAILABLE.withDescription("first attempt refused"), new Metadata());
          return new ServerCall.Listener<>() {};
        }
        return next.startCall(call, headers);
      }
    });
  }

  private static final AtomicInteger refusedFirstAttempts = new AtomicInteger();
  /** Only in the case below: the other cases check census stats, which count every attempt. */
  private static volatile boolean refuseFirstAttempts;

  /** The case grpc-java names, with the proof that its first attempt was refused and retried. */
  @Override
  @Test
  public void emptyUnaryWithRetriableStream() throws Exception {
    int before = refusedFirstAttempts.get();
    refuseFirstAttempts = true;
    try {
      super.emptyUnaryWithRetriableStream();
    } finally {
      refuseFirstAttempts = false;
    }
    assertThat(refusedFirstAttempts.get()).as("the first attempt was refused, the retry answered")
        .isEqualTo(before + 1);
  }

  @Override
  protected ManagedChannelBuilder<?> createChannelBuilder() {
    return ((TernChannelBuilder) super.createChannelBuilder()).defaultServiceConfig(RETRY_CONFIG);
  }
}
