package dev.tern.interop;

import java.util.Locale;

/** The standard gRPC interop cases Tern runs, by their standard names. */
public enum InteropCase {
  EMPTY_UNARY,
  LARGE_UNARY,
  /** Also probes that the server refuses an uncompressed request that expects compression. */
  CLIENT_COMPRESSED_UNARY,
  /** As {@link #CLIENT_COMPRESSED_UNARY} without the probe (servers that cannot check it). */
  CLIENT_COMPRESSED_UNARY_NOPROBE,
  SERVER_COMPRESSED_UNARY,
  CLIENT_STREAMING,
  /** Also probes that the server refuses an uncompressed request that expects compression. */
  CLIENT_COMPRESSED_STREAMING,
  /** As {@link #CLIENT_COMPRESSED_STREAMING} without the probe (servers that cannot check it). */
  CLIENT_COMPRESSED_STREAMING_NOPROBE,
  SERVER_STREAMING,
  SERVER_COMPRESSED_STREAMING,
  PING_PONG,
  EMPTY_STREAM,
  CUSTOM_METADATA,
  STATUS_CODE_AND_MESSAGE,
  SPECIAL_STATUS_MESSAGE,
  UNIMPLEMENTED_METHOD,
  UNIMPLEMENTED_SERVICE,
  CANCEL_AFTER_BEGIN,
  CANCEL_AFTER_FIRST_RESPONSE,
  TIMEOUT_ON_SLEEPING_SERVER;

  /** Every case, with the probing compression variants left out (for servers that cannot check). */
  public static java.util.List<InteropCase> withoutProbes() {
    java.util.List<InteropCase> cases = new java.util.ArrayList<>(java.util.List.of(values()));
    cases.remove(CLIENT_COMPRESSED_UNARY);
    cases.remove(CLIENT_COMPRESSED_STREAMING);
    return cases;
  }

  /** Every case, with the probing compression variants and without their no-probe twins. */
  public static java.util.List<InteropCase> withProbes() {
    java.util.List<InteropCase> cases = new java.util.ArrayList<>(java.util.List.of(values()));
    cases.remove(CLIENT_COMPRESSED_UNARY_NOPROBE);
    cases.remove(CLIENT_COMPRESSED_STREAMING_NOPROBE);
    return cases;
  }

  /** The standard name, e.g. {@code empty_unary}. */
  public String caseName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * The case with this standard name.
   *
   * @throws IllegalArgumentException naming the value if there is none
   */
  public static InteropCase fromName(String name) {
    for (InteropCase c : values()) {
      if (c.caseName().equals(name)) {
        return c;
      }
    }
    throw new IllegalArgumentException("test_case: unknown interop case '" + name + "'");
  }
}
