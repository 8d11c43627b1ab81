package dev.tern.rpc;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Stand-in for rpc-api's registry that records what generated code registers. */
public final class TernMethodOptions {
  public static final Map<String, Priority> REGISTERED = new ConcurrentHashMap<>();

  private TernMethodOptions() {}

  public static void registerDefaultPriority(String fullMethodName, Priority priority) {
    REGISTERED.put(fullMethodName, priority);
  }
}
