package dev.tern.rpc.resilience;

import io.grpc.Metadata;
import io.grpc.Status;

/**
 * One failed attempt of a call, as resilience4j's {@code Retry} sees it: the status and trailers,
 * whether the attempt timed out waiting for the response headers ({@code perAttemptRecvTimeout}),
 * the server's pushback, and whether anything forbids a retry whatever the code (a negative or
 * malformed pushback, the throttle, a committed call).
 */
final class AttemptFailure extends RuntimeException {
  private static final long serialVersionUID = 1L;

  final transient Status status;
  final transient Metadata trailers;
  final boolean timedOut;
  /** The server's {@code grpc-retry-pushback-ms}, if it gave a usable one; null otherwise. */
  final Long pushbackMillis;
  /** Retries since the last pushback: the exponent of the backoff (gRFC A6). */
  final int backoffStep;
  /** Why no retry may follow whatever the code; null if nothing forbids it. */
  final String vetoed;

  AttemptFailure(Status status, Metadata trailers, boolean timedOut, Long pushbackMillis, int backoffStep,
      String vetoed) {
    super(status.getCode() + (status.getDescription() == null ? "" : ": " + status.getDescription()),
        status.getCause(), false, false);
    this.status = status;
    this.trailers = trailers;
    this.timedOut = timedOut;
    this.pushbackMillis = pushbackMillis;
    this.backoffStep = backoffStep;
    this.vetoed = vetoed;
  }
}
