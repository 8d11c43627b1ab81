package dev.tern.rpc.spi;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Settings handed to a transport, as typed keys: common ones here, transport-specific ones as
 * constants of the transport's own classes ({@code new Key<>("udp.congestionControl", ...)}).
 * Immutable; transports ignore keys they do not know.
 */
public final class TransportOptions {

  /** A typed option key with a default. Keys compare by identity. */
  public static final class Key<T> {
    private final String name;
    private final T defaultValue;

    /** A key named {@code name} (for logs) that reads as {@code defaultValue} when unset. */
    public Key(String name, T defaultValue) {
      this.name = Objects.requireNonNull(name, "name");
      this.defaultValue = defaultValue;
    }

    /** The key's name, for logs and errors. */
    public String name() { return name; }

    /** What {@link TransportOptions#get} returns when the key is not set. */
    public T defaultValue() { return defaultValue; }

    @Override
    public String toString() { return name; }
  }

  /** Tern protocol versions this side speaks, highest preferred; see {@code ProtocolVersions}. */
  public static final Key<int[]> PROTOCOL_VERSIONS = new Key<>("protocolVersions", new int[] {1});
  /** TLS settings; null means plaintext (where the transport allows it). */
  public static final Key<TlsSettings> TLS = new Key<>("tls", null);
  /** Longest inbound message, in bytes (4 MiB, as grpc-java); larger ones fail the call with RESOURCE_EXHAUSTED. */
  public static final Key<Integer> MAX_INBOUND_MESSAGE_SIZE = new Key<>("maxInboundMessageSize", 4 * 1024 * 1024);
  /** Longest inbound header block (metadata), in bytes. */
  public static final Key<Integer> MAX_INBOUND_METADATA_SIZE = new Key<>("maxInboundMetadataSize", 8192);
  /** Initial per-stream flow-control window, in bytes. */
  public static final Key<Integer> FLOW_CONTROL_WINDOW = new Key<>("flowControlWindow", 1024 * 1024);
  /** Most concurrent streams a peer may open on one connection. */
  public static final Key<Integer> MAX_CONCURRENT_STREAMS = new Key<>("maxConcurrentStreams", 1000);
  /** Longest a connection's handshake may take, in milliseconds, before it fails. */
  public static final Key<Long> HANDSHAKE_TIMEOUT_MILLIS = new Key<>("handshakeTimeoutMillis", 20_000L);
  /** Idle time after which a connection with no open stream is closed, in milliseconds; 0 never. */
  public static final Key<Long> IDLE_TIMEOUT_MILLIS = new Key<>("idleTimeoutMillis", 0L);
  /** Keep-alive ping interval while calls are open, in milliseconds; 0 for none. */
  public static final Key<Long> KEEP_ALIVE_MILLIS = new Key<>("keepAliveMillis", 0L);

  /** The client's user agent, for transports that send one ({@code user-agent}); null: the transport's own. */
  public static final Key<String> USER_AGENT = new Key<>("userAgent", null);

  private static final TransportOptions EMPTY = new TransportOptions(Map.of());

  private final Map<Key<?>, Object> values;

  private TransportOptions(Map<Key<?>, Object> values) {
    this.values = values;
  }

  /** No options set: every key reads as its default. */
  public static TransportOptions defaults() {
    return EMPTY;
  }

  /** The value of {@code key}, or its default. */
  @SuppressWarnings("unchecked")
  public <T> T get(Key<T> key) {
    Object v = values.get(key);
    return v == null ? key.defaultValue() : (T) v;
  }

  /** Whether {@code key} was set explicitly. */
  public boolean isSet(Key<?> key) {
    return values.containsKey(key);
  }

  /** A copy with {@code key} set to {@code value} (null removes it). */
  public <T> TransportOptions with(Key<T> key, T value) {
    Map<Key<?>, Object> copy = new HashMap<>(values);
    if (value == null) {
      copy.remove(key);
    } else {
      copy.put(key, value);
    }
    return new TransportOptions(Map.copyOf(copy));
  }

  @Override
  public String toString() {
    return "TransportOptions" + values;
  }
}
