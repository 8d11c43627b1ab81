package dev.tern.interop;

import java.util.Locale;

/** The standard gRPC interop cases Tern runs, by their standard names. */
public enum InteropCase {
  EMPTY_UNARY,
  LARGE_UNARY,
  CLIENT_COMPRESSED_UNARY,
  SERVER_COMPRESSED_UNARY,
  CLIENT_STREAMING,
  CLIENT_COMPRESSED_STREAMING,
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
