package dev.tern.rpc;

import io.grpc.MethodDescriptor;
import io.grpc.Status;

/**
 * Which calls may travel as 0-RTT early data. An attacker can replay early data (RFC 8446 §8, RFC
 * 9001 §9.2), so only methods whose repetition does no harm may use it: idempotent ones, and safe
 * ones (no side effects at all), as their method descriptor says.
 */
final class EarlyData {
  private EarlyData() {}

  /**
   * Whether repeating a call to {@code method} is harmless, so it may go (and be accepted) early.
   * grpc-java's {@code setSafe(true)} also sets the idempotent flag; both are read in case a
   * descriptor cleared it afterwards.
   */
  static boolean replaySafe(MethodDescriptor<?, ?> method) {
    return method.isIdempotent() || method.isSafe();
  }

  /**
   * The status a server answers a call to a method that is not replay-safe and arrived as early
   * data: UNAVAILABLE, so that the client may send it again once the handshake is complete (the
   * gRPC analogue of HTTP's 425 Too Early, RFC 8470 §5.2).
   */
  static Status refusal(String fullMethodName) {
    return Status.UNAVAILABLE.withDescription("refused " + fullMethodName + ": it arrived as 0-RTT early data,"
        + " which may be a replay, and the method is not idempotent; send it again after the handshake");
  }
}
