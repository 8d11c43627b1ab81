package dev.tern.rpc.spi;

import io.grpc.CompressorRegistry;
import io.grpc.DecompressorRegistry;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Settings handed to a transport, as typed keys: common ones here, transport-specific ones as
 * constants of the transport's own classes ({@code new Key<>("udp.congestionControl", ...)}).
 * Immutable; transports ignore keys they do not know.
 */
public final class TransportOptions {

  /**
   * A typed option key with a default. Keys compare by identity, so each is one constant shared
   * by whoever sets it and the transport that reads it.
   *
   * @param <T> the type of the option's value
   */
  public static final class Key<T> {
    private final String name;
    private final T defaultValue;

    /**
     * A key named {@code name} (for logs) that reads as {@code defaultValue} when unset.
     *
     * @param name the key's name, such as {@code "udp.congestionControl"}; not null
     * @param defaultValue the value when the option is not set; may be null
     * @throws NullPointerException if {@code name} is null
     */
    public Key(String name, T defaultValue) {
      this.name = Objects.requireNonNull(name, "name");
      this.defaultValue = defaultValue;
    }

    /**
     * The key's name, for logs and errors.
     *
     * @return the name given to the constructor
     */
    public String name() { return name; }

    /**
     * What {@link TransportOptions#get} returns when the key is not set.
     *
     * @return the default value; may be null
     */
    public T defaultValue() { return defaultValue; }

    @Override
    public String toString() { return name; }
  }

  /** Tern protocol versions this side speaks, highest preferred; see {@code ProtocolVersions}. */
  public static final Key<int[]> PROTOCOL_VERSIONS = new Key<>("protocolVersions", new int[] {1});
  /** TLS settings; null means plaintext (where the transport allows it). */
  public static final Key<TlsSettings> TLS = new Key<>("tls", null);
  /**
   * Longest inbound message, in bytes (4 MiB, as grpc-java); larger ones fail the call with
   * RESOURCE_EXHAUSTED.
   */
  public static final Key<Integer> MAX_INBOUND_MESSAGE_SIZE = new Key<>("maxInboundMessageSize", 4 * 1024 * 1024);
  /** Longest inbound header block (metadata), in bytes. */
  public static final Key<Integer> MAX_INBOUND_METADATA_SIZE = new Key<>("maxInboundMetadataSize", 8192);
  /**
   * Client: whether a call the server never processed (the transport refused its stream
   * unprocessed) is sent again, once, on a new stream: grpc-java's transparent retry, on by default
   * and off after the channel builder's {@code disableRetry()}, as in grpc-java. Transports that
   * wrap a grpc-java channel apply it there; the call layer applies it to
   * {@link ClientStreamListener#onRefused}.
   */
  public static final Key<Boolean> TRANSPARENT_RETRY = new Key<>("transparentRetry", true);
  /**
   * Client: most request bytes a call keeps for a transparent retry (1 MiB, grpc-java's
   * {@code perRpcBufferLimit} default); a call that sends more can no longer be replayed.
   */
  public static final Key<Long> PER_RPC_BUFFER_LIMIT = new Key<>("perRpcBufferLimit", 1L << 20);
  /**
   * Client: most request bytes a channel's calls keep for transparent retries together (16 MiB,
   * grpc-java's {@code retryBufferSize} default); past it, calls are committed (not replayable).
   */
  public static final Key<Long> RETRY_BUFFER_SIZE = new Key<>("retryBufferSize", 16L << 20);
  /** Initial per-stream flow-control window, in bytes. */
  public static final Key<Integer> FLOW_CONTROL_WINDOW = new Key<>("flowControlWindow", 1024 * 1024);
  /** Most concurrent streams a peer may open on one connection. */
  public static final Key<Integer> MAX_CONCURRENT_STREAMS = new Key<>("maxConcurrentStreams", 1000);
  /** Longest a connection's handshake may take, in milliseconds, before it fails. */
  public static final Key<Long> HANDSHAKE_TIMEOUT_MILLIS = new Key<>("handshakeTimeoutMillis", 20_000L);
  /**
   * Idle time after which a connection with no open stream is closed, in milliseconds; 0 never.
   * A client's channel: unset, never. A {@code tcp} or {@code quic} server: unset, {@link
   * #DEFAULT_SERVER_IDLE_TIMEOUT_MILLIS} (see {@link #serverIdleTimeoutMillis}).
   */
  public static final Key<Long> IDLE_TIMEOUT_MILLIS = new Key<>("idleTimeoutMillis", 0L);

  /**
   * A {@code tcp} or {@code quic} server's {@link #IDLE_TIMEOUT_MILLIS} when none is set: 5
   * minutes (grpc-java's {@code maxConnectionIdle} is off by default). Without it, a connection
   * that sends the HTTP/2 preface and goes quiet holds a file descriptor and its buffers for ever,
   * and enough of them lock every new client out. Closing costs little: the server sends GOAWAY
   * first, so no call is lost, and a client that calls again reconnects (one handshake). Five
   * minutes keeps the connections of clients that call every few minutes (far longer than load
   * balancers' usual idle timeouts of one to a few minutes), and frees a flood's slots under
   * {@link #MAX_CONNECTIONS} within minutes.
   */
  public static final long DEFAULT_SERVER_IDLE_TIMEOUT_MILLIS = 5 * 60_000L;

  /**
   * A server's idle timeout: {@link #IDLE_TIMEOUT_MILLIS} if set, else {@link
   * #DEFAULT_SERVER_IDLE_TIMEOUT_MILLIS}; 0 (off) for a value of {@code Long.MAX_VALUE} milliseconds
   * or more than a year, which is how the server builder's {@code maxConnectionIdle} turns it off.
   *
   * @param options the server's options; not null
   * @return the idle time in milliseconds, or 0 for none
   */
  public static long serverIdleTimeoutMillis(TransportOptions options) {
    long idle = options.isSet(IDLE_TIMEOUT_MILLIS) ? options.get(IDLE_TIMEOUT_MILLIS) : DEFAULT_SERVER_IDLE_TIMEOUT_MILLIS;
    return idle <= 0 || idle > 365L * 24 * 3600 * 1000 ? 0 : idle;
  }
  /**
   * Keep-alive ping interval, in milliseconds; 0: the transport's default (none on {@code tcp}, as
   * grpc-java). On a client, pings are sent while calls are open (and without calls if {@link
   * #KEEP_ALIVE_WITHOUT_CALLS}); on a server, to every connection.
   */
  public static final Key<Long> KEEP_ALIVE_MILLIS = new Key<>("keepAliveMillis", 0L);
  /**
   * How long a keep-alive ping may go unanswered before the connection is declared dead, in
   * milliseconds (20 s, as grpc-java).
   */
  public static final Key<Long> KEEP_ALIVE_TIMEOUT_MILLIS = new Key<>("keepAliveTimeoutMillis", 20_000L);
  /** Client: whether keep-alive pings are sent while no call is open (false, as grpc-java). */
  public static final Key<Boolean> KEEP_ALIVE_WITHOUT_CALLS = new Key<>("keepAliveWithoutCalls", false);
  /**
   * Server: the shortest interval between a client's pings that the server accepts, in
   * milliseconds (5 minutes, as grpc-java); a client pinging more often is sent GOAWAY
   * {@code too_many_pings}.
   */
  public static final Key<Long> PERMIT_KEEP_ALIVE_MILLIS = new Key<>("permitKeepAliveMillis", 300_000L);
  /** Server: whether clients may ping while they have no call open (false, as grpc-java). */
  public static final Key<Boolean> PERMIT_KEEP_ALIVE_WITHOUT_CALLS = new Key<>("permitKeepAliveWithoutCalls", false);
  /**
   * Server: age after which a connection is sent GOAWAY, in milliseconds; 0 never (as grpc-java).
   * Transports add a jitter of up to ±10%, as grpc-java does, so that connections opened together
   * do not all leave together.
   */
  public static final Key<Long> MAX_CONNECTION_AGE_MILLIS = new Key<>("maxConnectionAgeMillis", 0L);
  /**
   * Server: how long calls still running on a connection past its {@link #MAX_CONNECTION_AGE_MILLIS}
   * may take before the connection is closed, in milliseconds; 0 unbounded (as grpc-java).
   */
  public static final Key<Long> MAX_CONNECTION_AGE_GRACE_MILLIS = new Key<>("maxConnectionAgeGraceMillis", 0L);

  /**
   * Server: how many RST_STREAM frames a client may send on one connection per {@link
   * #RST_FRAMES_WINDOW_SECONDS} before the connection is closed with GOAWAY {@code
   * ENHANCE_YOUR_CALM}, after a drain that lets the calls in flight end (HTTP/2 "rapid reset", CVE-2023-44487: a client that opens and at once
   * resets streams makes the server start calls without ever being held to its stream limit); 0
   * lets any number through. 200 by default: the count Netty's own HTTP/2 server codec allows
   * ({@code decoderEnforceMaxRstFramesPerWindow}, 200 per 30 s), over a 10 s window, because
   * cancelling is normal for gRPC clients (grpc-java's {@code NettyServerBuilder.maxRstFramesPerWindow}
   * warns that a low limit fails legitimate clients, and sets none by default). Carried out on
   * {@code tcp} (RST_STREAM frames) and {@code quic} (streams the client resets before the server
   * has answered, closed with {@code H3_EXCESSIVE_LOAD}).
   */
  public static final Key<Integer> MAX_RST_FRAMES_PER_WINDOW = new Key<>("maxRstFramesPerWindow", 200);
  /** Server: the window {@link #MAX_RST_FRAMES_PER_WINDOW} counts over, in seconds (10). */
  public static final Key<Integer> RST_FRAMES_WINDOW_SECONDS = new Key<>("rstFramesWindowSeconds", 10);

  /**
   * Server: most connections one server transport holds at once, established and in handshake
   * together; a connection beyond it is refused at once (TCP: accepted and closed; QUIC: refused
   * with {@code CONNECTION_REFUSED} after a Retry) and counted, and the connections
   * already open are untouched. On {@code udp}, {@code udp.maxConnections} takes precedence and
   * INITIALs beyond the limit are dropped. 10,000 by default: well under the file descriptors a server
   * process gets (Linux's usual hard limit is 524,288 or more; the JVM raises its soft limit to
   * it), so that a flood of idle connections cannot exhaust them, while ordinary servers never
   * reach it; raise it for servers that hold more clients. There is deliberately no limit per
   * client address: many phones share one carrier NAT address. 0 lets any number through.
   */
  public static final Key<Integer> MAX_CONNECTIONS = new Key<>("maxConnections", 10_000);

  /**
   * The client's user agent, for transports that send one ({@code user-agent}); null: the
   * transport's own.
   */
  public static final Key<String> USER_AGENT = new Key<>("userAgent", null);

  /**
   * Compressors for the messages this side sends, as grpc-java's registry: a transport that
   * compresses messages itself looks the call's encoding up here. The channel and server builders
   * set the registry they were given ({@code compressorRegistry(...)}).
   */
  public static final Key<CompressorRegistry> COMPRESSOR_REGISTRY =
      new Key<>("compressorRegistry", CompressorRegistry.getDefaultInstance());

  /**
   * Decompressors for the messages this side receives, as grpc-java's registry: a transport that
   * decompresses messages itself looks the peer's encoding up here. The channel and server
   * builders set the registry they were given ({@code decompressorRegistry(...)}).
   */
  public static final Key<DecompressorRegistry> DECOMPRESSOR_REGISTRY =
      new Key<>("decompressorRegistry", DecompressorRegistry.getDefaultInstance());

  /**
   * Where the transport reports its own events for the metrics ({@link TransportEvents}); the call
   * layer sets one per transport it creates. Not set, events go nowhere.
   */
  public static final Key<TransportEvents> EVENTS = new Key<>("events", TransportEvents.NONE);

  /**
   * Where a client transport keeps what it remembers about servers across connections
   * (resumption tickets, address-validation tokens): a file-backed {@link SessionStore} lets an
   * application that restarts resume at once. Not set (null), a transport keeps them in memory for
   * the life of the process.
   */
  public static final Key<SessionStore> SESSION_STORE = new Key<>("sessionStore", null);

  private static final TransportOptions EMPTY = new TransportOptions(Collections.emptyMap());

  private final Map<Key<?>, Object> values;

  private TransportOptions(Map<Key<?>, Object> values) {
    this.values = values;
  }

  /**
   * No options set: every key reads as its default.
   *
   * @return the one empty instance
   */
  public static TransportOptions defaults() {
    return EMPTY;
  }

  /**
   * The value of {@code key}, or its default.
   *
   * @param <T> the type of the option's value
   * @param key the option; not null
   * @return the value set, or {@link Key#defaultValue()} if none was set
   * @throws NullPointerException if {@code key} is null
   */
  @SuppressWarnings("unchecked")
  public <T> T get(Key<T> key) {
    Object v = values.get(key);
    return v == null ? key.defaultValue() : (T) v;
  }

  /**
   * Whether {@code key} was set explicitly; a key set to a value equal to its default counts.
   *
   * @param key the option; not null
   * @return true if {@link #with} set it
   * @throws NullPointerException if {@code key} is null
   */
  public boolean isSet(Key<?> key) {
    return values.containsKey(Objects.requireNonNull(key, "key"));
  }

  /**
   * A copy with {@code key} set to {@code value}; this object does not change.
   *
   * @param <T> the type of the option's value
   * @param key the option; not null
   * @param value the new value, or null to unset the key (it then reads as its default)
   * @return a new options object
   */
  public <T> TransportOptions with(Key<T> key, T value) {
    Objects.requireNonNull(key, "key");
    Map<Key<?>, Object> copy = new HashMap<>(values);
    if (value == null) {
      copy.remove(key);
    } else {
      copy.put(key, value);
    }
    return new TransportOptions(Collections.unmodifiableMap(new LinkedHashMap<>(copy)));
  }

  @Override
  public String toString() {
    return "TransportOptions" + values;
  }
}
