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
   * none themselves; a later registration for the same method replaces this one.
   *
   * @param fullMethodName the method, as {@code package.Service/Method}
   * @param priority the priority its calls get by default
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code fullMethodName} has no {@code /} after a service
   *     name
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

  /**
   * The registered default priority of {@code fullMethodName}.
   *
   * @param fullMethodName the method, as {@code package.Service/Method}; not null
   * @return the priority registered for it, or null if none is
   * @throws NullPointerException if {@code fullMethodName} is null
   */
  public static Priority defaultPriority(String fullMethodName) {
    return PRIORITIES.get(fullMethodName);
  }

  /**
   * Removes a registration (for tests and for unloading services); nothing happens if there is
   * none.
   *
   * @param fullMethodName the method, as {@code package.Service/Method}; not null
   * @throws NullPointerException if {@code fullMethodName} is null
   */
  public static void unregister(String fullMethodName) {
    PRIORITIES.remove(fullMethodName);
  }
}
