package dev.tern.rpc;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Per-method defaults that generated code registers when its service class loads, read by the call
 * layer when a call's {@link io.grpc.CallOptions} set none.
 *
 * <p>The default priority comes from the proto method option {@code (tern.tern_priority)}, field
 * number 51234 of {@code google.protobuf.MethodOptions}, declared in {@code tern/options.proto}
 * (shipped in this jar as a resource).
 */
public final class TernMethodOptions {
  private static final Map<String, Priority> PRIORITIES = new ConcurrentHashMap<>();

  private TernMethodOptions() {}

  /**
   * Sets the priority of calls to {@code fullMethodName} ({@code package.Service/Method}) that set
   * none themselves.
   */
  public static void registerDefaultPriority(String fullMethodName, Priority priority) {
    Objects.requireNonNull(fullMethodName, "fullMethodName");
    Objects.requireNonNull(priority, "priority");
    if (fullMethodName.indexOf('/') <= 0) {
      throw new IllegalArgumentException("fullMethodName must be package.Service/Method, was '"
          + fullMethodName + "'");
    }
    PRIORITIES.put(fullMethodName, priority);
  }

  /** The registered default priority of {@code fullMethodName}, or null. */
  public static Priority defaultPriority(String fullMethodName) {
    return PRIORITIES.get(fullMethodName);
  }

  /** Removes a registration (for tests and for unloading services). */
  public static void unregister(String fullMethodName) {
    PRIORITIES.remove(fullMethodName);
  }
}
