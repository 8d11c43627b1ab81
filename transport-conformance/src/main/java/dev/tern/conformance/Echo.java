package dev.tern.conformance;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;

/** An echo service and a blocking call to it, for end-to-end tests outside this module. */
public final class Echo {
  private Echo() {}

  /** The service: {@code conformance.Strings/Echo} answers its request. */
  public static ServerServiceDefinition service() {
    return new StringService().definition();
  }

  /**
   * Calls {@code Echo} with {@code request}, waiting at most 10 s.
   *
   * @throws StatusRuntimeException if the call fails
   */
  public static String call(Channel channel, String request) throws InterruptedException {
    return StringService.call(channel, StringService.ECHO, CallOptions.DEFAULT, request, 10_000);
  }

  /** Calls {@code Echo} and returns the status it failed with; an answer fails the test. */
  public static Status failure(Channel channel, String request) throws InterruptedException {
    try {
      String answer = call(channel, request);
      throw new AssertionError("the call was expected to fail but was answered: " + answer);
    } catch (StatusRuntimeException e) {
      return e.getStatus();
    }
  }
}
