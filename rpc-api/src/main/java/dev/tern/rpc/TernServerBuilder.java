package dev.tern.rpc;

import dev.tern.rpc.spi.TlsSettings;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.BinaryLog;
import io.grpc.BindableService;
import io.grpc.CompressorRegistry;
import io.grpc.DecompressorRegistry;
import io.grpc.HandlerRegistry;
import io.grpc.MetricSink;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.ServerCallExecutorSupplier;
import io.grpc.ServerCredentials;
import io.grpc.ServerInterceptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServerStreamTracer;
import io.grpc.ServerTransportFilter;
import java.io.File;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * Builds a Tern {@link Server}: one set of services served on several transports at once.
 *
 * <pre>{@code
 * Server server = TernServerBuilder.forPort(8443)          // tcp
 *     .listen("quic", 8443)                                // UDP port 8443
 *     .addService(new FeedService())
 *     .useTransportSecurity(certFile, keyFile)             // QUIC needs TLS
 *     .build().start();
 * }</pre>
 *
 * <p>Transports: {@code tcp}, {@code quic} and Tern's own {@code udp} (which needs its static key,
 * {@code UdpTransportOptions.SERVER_STATIC_KEY}).
 * {@link #build()} refuses a transport name that is not on the class path, and a {@code quic}
 * listener without TLS ({@link #useTransportSecurity(File, File)} or {@link #tls(TernTls)}).
 */
public final class TernServerBuilder extends ServerBuilder<TernServerBuilder> {
  private final List<dev.tern.rpc.spi.TransportProvider> providers = new ArrayList<>();
  private final List<TernServer.Listen> listens = new ArrayList<>();
  private final Map<String, ServerServiceDefinition> services = new LinkedHashMap<>();
  private final List<ServerInterceptor> interceptors = new ArrayList<>();
  private final List<ServerStreamTracer.Factory> tracers = new ArrayList<>();
  private final List<MetricSink> metricSinks = new ArrayList<>();
  private final List<ServerTransportFilter> transportFilters = new ArrayList<>();
  private boolean censusStats = true;
  private boolean censusTracing = true;
  private HandlerRegistry fallback;
  private Executor executor;
  private ServerCallExecutorSupplier callExecutors;
  private CompressorRegistry compressors = CompressorRegistry.getDefaultInstance();
  private DecompressorRegistry decompressors = DecompressorRegistry.getDefaultInstance();
  private int maxInboundMessageSize = TransportOptions.MAX_INBOUND_MESSAGE_SIZE.defaultValue();
  private int[] protocolVersions = ProtocolVersions.SUPPORTED.clone();
  private TransportOptions options = TransportOptions.defaults();
  private TlsSettings tls;
  private BinaryLog binaryLog;
  private dev.tern.rpc.metrics.TernMetrics metrics;
  private String metricsScope = "server";
  private boolean advertise = true;
  private long advertisementMaxAgeSeconds = AltSvc.DEFAULT_MAX_AGE_SECONDS;

  private TernServerBuilder() {}

  /**
   * A builder with no listening address yet; add them with {@link #listen}.
   *
   * @return a new builder without TLS and without listening addresses
   */
  public static TernServerBuilder create() {
    return new TernServerBuilder();
  }

  /**
   * A builder listening with TCP on {@code port} on every interface (0: any free port).
   *
   * @param port the TCP port, 0..65535
   * @return a new builder without TLS, listening with {@code tcp} on {@code port}
   * @throws IllegalArgumentException if {@code port} is outside 0..65535
   */
  public static TernServerBuilder forPort(int port) {
    return new TernServerBuilder().listen("tcp", port);
  }

  /**
   * A builder listening with TCP on {@code port}, secured by grpc-java {@code credentials}, as
   * {@code Grpc.newServerBuilderForPort(port, credentials)}: {@code TlsServerCredentials} with PEM
   * or a key manager (and, for mutual TLS, {@code ClientAuth.REQUIRE} with trust), or {@code
   * InsecureServerCredentials}.
   *
   * @param port the TCP port, 0..65535 (0: any free port)
   * @param credentials the server credentials; not null
   * @return a new builder listening with {@code tcp} on {@code port}
   * @throws NullPointerException if {@code credentials} is null
   * @throws IllegalArgumentException if the credentials carry something Tern cannot use, naming it,
   *     or if {@code port} is outside 0..65535
   */
  public static TernServerBuilder forPort(int port, ServerCredentials credentials) {
    Objects.requireNonNull(credentials, "credentials");
    TernServerBuilder b = forPort(port);
    b.tls = Credentials.server(credentials);
    return b;
  }

  /**
   * Secures every transport with grpc-java {@code credentials} (as {@link #forPort(int,
   * ServerCredentials)}), replacing earlier TLS settings.
   *
   * @param credentials {@code TlsServerCredentials} or {@code InsecureServerCredentials}; not null
   * @return this builder
   * @throws NullPointerException if {@code credentials} is null
   * @throws IllegalArgumentException if the credentials carry something Tern cannot use, naming it
   */
  public TernServerBuilder credentials(ServerCredentials credentials) {
    tls = Credentials.server(Objects.requireNonNull(credentials, "credentials"));
    return this;
  }

  /**
   * Also listens with {@code transportName} on {@code address}. The name is checked by {@link
   * #build()}; the address is bound by {@code start()}.
   *
   * @param transportName a {@link dev.tern.rpc.spi.TransportProvider#name()}, such as {@code
   *     "tcp"} or {@code "quic"}; not null
   * @param address where to listen, an {@link InetSocketAddress} or the transport's own address
   *     type; not null
   * @return this builder
   * @throws NullPointerException if {@code transportName} or {@code address} is null
   */
  public TernServerBuilder listen(String transportName, SocketAddress address) {
    listens.add(new TernServer.Listen(Objects.requireNonNull(transportName, "transportName"),
        Objects.requireNonNull(address, "address")));
    return this;
  }

  /**
   * Also listens with {@code transportName} on {@code port} on every interface.
   *
   * @param transportName a {@link dev.tern.rpc.spi.TransportProvider#name()}; not null
   * @param port the port, 0..65535 (0: any free port; {@code Server.getListenSockets()} tells
   *     which)
   * @return this builder
   * @throws NullPointerException if {@code transportName} is null
   * @throws IllegalArgumentException if {@code port} is outside 0..65535
   */
  public TernServerBuilder listen(String transportName, int port) {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be in 0..65535, was " + port);
    }
    return listen(transportName, new InetSocketAddress(port));
  }

  /**
   * Serves {@code service} on every transport, as in grpc-java; a later service with the same name
   * replaces it.
   *
   * @param service the service definition; not null
   * @return this builder
   */
  @Override
  public TernServerBuilder addService(ServerServiceDefinition service) {
    services.put(service.getServiceDescriptor().getName(), service);
    return this;
  }

  /**
   * Serves {@code service.bindService()}, as {@link #addService(ServerServiceDefinition)}.
   *
   * @param service the service implementation; not null
   * @return this builder
   */
  @Override
  public TernServerBuilder addService(BindableService service) {
    return addService(service.bindService());
  }

  /**
   * Looks up methods that no added service has, as in grpc-java; null (the default): such calls
   * fail with {@code UNIMPLEMENTED}.
   *
   * @param registry the fallback registry, or null
   * @return this builder
   */
  @Override
  public TernServerBuilder fallbackHandlerRegistry(HandlerRegistry registry) {
    fallback = registry;
    return this;
  }

  /**
   * Makes {@code provider} available by its name without {@link java.util.ServiceLoader} (a
   * provider bound by hand or by Guice); it wins over a discovered provider of the same name.
   *
   * @param provider the transport provider; not null
   * @return this builder
   * @throws NullPointerException if {@code provider} is null
   */
  public TernServerBuilder addTransportProvider(dev.tern.rpc.spi.TransportProvider provider) {
    providers.add(Objects.requireNonNull(provider, "provider"));
    return this;
  }

  /**
   * Runs {@code interceptor} on every call, on every transport; interceptors added last run first.
   *
   * @param interceptor the interceptor; not null
   * @return this builder
   * @throws NullPointerException if {@code interceptor} is null
   */
  @Override
  public TernServerBuilder intercept(ServerInterceptor interceptor) {
    interceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
    return this;
  }

  /**
   * Whether OpenCensus stats are recorded for the calls this server serves (true by default), as grpc-java's builders
   * do when {@code io.grpc:grpc-census} is on the class path: without it this has no effect. Turn
   * it off to install census with settings of your own, through {@link #addStreamTracerFactory} (grpc-java offers this switch
   * only through its internal builder accessors).
   *
   * @param enabled false to leave census stats out
   * @return this builder
   */
  public TernServerBuilder censusStats(boolean enabled) {
    censusStats = enabled;
    return this;
  }

  /**
   * Whether OpenCensus tracing spans are made for the calls this server serves and carried in {@code grpc-trace-bin} (true
   * by default), as grpc-java's builders do when {@code io.grpc:grpc-census} is on the class path:
   * without it this has no effect.
   *
   * @param enabled false to leave census tracing out
   * @return this builder
   */
  public TernServerBuilder censusTracing(boolean enabled) {
    censusTracing = enabled;
    return this;
  }

  /**
   * Creates a tracer for every call; its events (start, messages, close) are reported.
   *
   * @param factory the tracer factory; not null
   * @return this builder
   * @throws NullPointerException if {@code factory} is null
   */
  @Override
  public TernServerBuilder addStreamTracerFactory(ServerStreamTracer.Factory factory) {
    tracers.add(Objects.requireNonNull(factory, "factory"));
    return this;
  }

  /**
   * The executor that runs service methods and call listeners, as in grpc-java. Unset, the server
   * runs a cached pool of its own and stops it on shutdown; one given here stays the
   * application's to shut down.
   *
   * <p>The default pool is unbounded, as grpc-java's: a bounded one deadlocks a server whose
   * methods block on other calls (a streaming method waiting for the client's next message, a
   * method calling another service of the same server), which grpc-java's API allows and many
   * services do. What bounds its threads instead is the admission of work: each connection opens
   * at most {@code maxConcurrentCallsPerConnection} calls, streams reset at once count against
   * {@link #maxRstFramesPerWindow}, and connections against {@link #maxConnections}. A service
   * whose methods never block can give a fixed pool here (or {@link #directExecutor()}) to bound
   * them outright; docs/limits.md says more.
   *
   * @param e the executor; not null
   * @return this builder
   * @throws NullPointerException if {@code e} is null
   */
  @Override
  public TernServerBuilder executor(Executor e) {
    executor = Objects.requireNonNull(e, "executor");
    return this;
  }

  /**
   * Runs service methods on the transport's own thread, as in grpc-java: fastest, but a method
   * that blocks stalls the connection.
   *
   * @return this builder
   */
  @Override
  public TernServerBuilder directExecutor() {
    executor = Runnable::run;
    return this;
  }

  /**
   * Largest request message accepted (4 MiB by default); larger ones fail the call with
   * RESOURCE_EXHAUSTED. Honoured by every transport.
   *
   * @param bytes the limit in bytes, 0 or more
   * @return this builder
   * @throws IllegalArgumentException if {@code bytes} is negative
   */
  @Override
  public TernServerBuilder maxInboundMessageSize(int bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("maxInboundMessageSize must be >= 0, was " + bytes);
    }
    maxInboundMessageSize = bytes;
    return this;
  }

  /**
   * Whether the server tells its clients which better transports it also listens with (default:
   * it does), in an {@code alt-svc} field (RFC 7838) in the response headers of every call on a
   * TLS connection: on {@code tcp}, {@code okhttp} and {@code quic} calls, the server's {@code
   * udp} (with its port and public key) and, on TCP, its {@code quic} listener. A Tern client that
   * authenticated the server learns it and races the advertised transport on its next connect,
   * even without the server key it would otherwise need (docs/transport-choice.md).
   *
   * @param advertise false to send no advertisement
   * @return this builder
   */
  public TernServerBuilder advertiseTransports(boolean advertise) {
    this.advertise = advertise;
    return this;
  }

  /**
   * How long clients may use what the server advertises ({@code ma}, RFC 7838 §3.1; default 24
   * hours): a client that has not heard it again by then no longer races the advertised
   * transports. Keep it shorter than the time between rotations of the {@code udp} server key.
   *
   * @param maxAge the max-age, at least 1 s
   * @param unit the unit of {@code maxAge}
   * @return this builder
   * @throws IllegalArgumentException if {@code maxAge} is under a second
   */
  public TernServerBuilder advertisementMaxAge(long maxAge, TimeUnit unit) {
    long seconds = unit.toSeconds(maxAge);
    if (seconds < 1) {
      throw new IllegalArgumentException("advertisement max-age must be at least 1 s, was " + maxAge + " " + unit);
    }
    advertisementMaxAgeSeconds = seconds;
    return this;
  }

  /**
   * Longest a connection's handshake may take before the server drops it (default 20 s), on every
   * transport: {@code tcp} as grpc-netty does, {@code quic} and {@code udp} from the moment a
   * client's first packet created the connection.
   *
   * @param timeout the timeout, more than 0
   * @param unit the unit of {@code timeout}
   * @return this builder
   * @throws IllegalArgumentException if {@code timeout} is 0 or less
   */
  @Override
  public TernServerBuilder handshakeTimeout(long timeout, TimeUnit unit) {
    if (timeout <= 0) {
      throw new IllegalArgumentException("handshake timeout must be > 0, was " + timeout);
    }
    options = options.with(TransportOptions.HANDSHAKE_TIMEOUT_MILLIS, unit.toMillis(timeout));
    return this;
  }

  /**
   * Compressors for responses, as in grpc-java; null restores the default registry (gzip).
   *
   * @param registry the registry, or null
   * @return this builder
   */
  @Override
  public TernServerBuilder compressorRegistry(CompressorRegistry registry) {
    compressors = registry == null ? CompressorRegistry.getDefaultInstance() : registry;
    return this;
  }

  /**
   * Decompressors for requests, as in grpc-java; null restores the default registry (gzip).
   *
   * @param registry the registry, or null
   * @return this builder
   */
  @Override
  public TernServerBuilder decompressorRegistry(DecompressorRegistry registry) {
    decompressors = registry == null ? DecompressorRegistry.getDefaultInstance() : registry;
    return this;
  }

  /**
   * TLS on every transport: the server's certificate and key (PEM or a {@code KeyStore}) and, for
   * mutual TLS, whom to trust. Replaces earlier TLS settings.
   *
   * @param settings built by {@link TernTls#newBuilder()} with a key manager; not null
   * @return this builder
   * @throws NullPointerException if {@code settings} is null
   */
  public TernServerBuilder tls(TernTls settings) {
    tls = Objects.requireNonNull(settings, "settings").settings();
    return this;
  }

  /**
   * TLS with these transport-level settings (what {@link #tls(TernTls)} builds; kept for code that
   * already has {@link TlsSettings}). Replaces earlier TLS settings.
   *
   * @param settings server TLS settings; not null
   * @return this builder
   * @throws NullPointerException if {@code settings} is null
   */
  public TernServerBuilder tls(TlsSettings settings) {
    tls = Objects.requireNonNull(settings, "settings");
    return this;
  }

  /**
   * TLS with a PEM certificate chain and an unencrypted PEM private key (PKCS#8, SEC1 {@code
   * BEGIN EC PRIVATE KEY} or PKCS#1 {@code BEGIN RSA PRIVATE KEY}), read now, on every transport.
   *
   * @param certChain the PEM certificate chain, the server's own certificate first
   * @param privateKey the PEM private key of the first certificate
   * @return this builder
   * @throws UncheckedIOException naming the file that cannot be read
   * @throws IllegalArgumentException if the PEM cannot be read, saying what to do
   */
  @Override
  public TernServerBuilder useTransportSecurity(File certChain, File privateKey) {
    return tls(TernTls.newBuilder().keyManager(certChain, privateKey).build());
  }

  /**
   * TLS with a PEM certificate chain and private key read from these streams now (as {@link
   * #useTransportSecurity(File, File)}; the caller closes them).
   *
   * @param certChain the PEM certificate chain, the server's own certificate first
   * @param privateKey the PEM private key of the first certificate
   * @return this builder
   * @throws UncheckedIOException if a stream cannot be read
   * @throws IllegalArgumentException if the PEM cannot be read, saying what to do
   */
  @Override
  public TernServerBuilder useTransportSecurity(InputStream certChain, InputStream privateKey) {
    return tls(TernTls.newBuilder().keyManager(certChain, privateKey).build());
  }

  /**
   * Most calls a client may have open at once on one connection (1,000 by default), as grpc-netty's
   * {@code NettyServerBuilder.maxConcurrentCallsPerConnection}: HTTP/2's {@code
   * SETTINGS_MAX_CONCURRENT_STREAMS} on {@code tcp}, QUIC's bidirectional stream limit
   * ({@code initial_max_streams_bidi}, RFC 9000 §4.6) on {@code quic}. A client's further calls wait
   * for one to end.
   *
   * @param maxCalls the limit, more than 0
   * @return this builder
   * @throws IllegalArgumentException if {@code maxCalls} is 0 or less
   */
  public TernServerBuilder maxConcurrentCallsPerConnection(int maxCalls) {
    if (maxCalls <= 0) {
      throw new IllegalArgumentException("maxConcurrentCallsPerConnection must be > 0, was " + maxCalls);
    }
    options = options.with(TransportOptions.MAX_CONCURRENT_STREAMS, maxCalls);
    return this;
  }

  /**
   * Largest request header block (metadata), in bytes (8 KiB by default), as in grpc-java. Every
   * transport refuses a call over it: {@code tcp} as HTTP/2's {@code SETTINGS_MAX_HEADER_LIST_SIZE}
   * ({@code INTERNAL}, as grpc-netty), {@code quic} as HTTP/3's {@code
   * SETTINGS_MAX_FIELD_SECTION_SIZE} ({@code INTERNAL}), in-process and {@code udp} with {@code
   * RESOURCE_EXHAUSTED} (udp accepts at least 1 KiB); see docs/errors.md.
   *
   * @param bytes the limit, more than 0
   * @return this builder
   * @throws IllegalArgumentException if {@code bytes} is 0 or less
   */
  @Override
  public TernServerBuilder maxInboundMetadataSize(int bytes) {
    if (bytes <= 0) {
      throw new IllegalArgumentException("maxInboundMetadataSize must be > 0, was " + bytes);
    }
    options = options.with(TransportOptions.MAX_INBOUND_METADATA_SIZE, bytes);
    return this;
  }

  /**
   * Picks each call's executor, as in grpc-java: {@code supplier} is asked with the call and its
   * request headers before the call starts, and the call's handler and listener run on what it
   * returns; when it returns null (or throws, which is logged), on the server's executor.
   *
   * @param supplier the chooser; not null
   * @return this builder
   */
  @Override
  public TernServerBuilder callExecutor(ServerCallExecutorSupplier supplier) {
    callExecutors = java.util.Objects.requireNonNull(supplier, "supplier");
    return this;
  }

  /**
   * Adds a filter that sees every connection of every transport, as in grpc-java: its {@code
   * transportReady} once when the connection's handshake is done, with the connection's
   * attributes ({@code Grpc.TRANSPORT_ATTR_REMOTE_ADDR}, {@code TRANSPORT_ATTR_LOCAL_ADDR}, {@code
   * TRANSPORT_ATTR_SSL_SESSION} with TLS, and {@link dev.tern.rpc.spi.ConnectionAttributes}'s
   * transport name and security level), and {@code transportTerminated} once when the connection
   * has ended, also when the server shuts down. Filters run in the order added, each given what
   * the one before returned; what the last returns is every call's {@code
   * ServerCall.getAttributes()} on that connection. A filter that throws or returns null is logged
   * and skipped; the connection stays up. A connection that never finished its handshake is shown
   * to no filter.
   *
   * @param filter the filter; not null
   * @return this builder
   * @throws NullPointerException if {@code filter} is null
   */
  @Override
  public TernServerBuilder addTransportFilter(ServerTransportFilter filter) {
    transportFilters.add(Objects.requireNonNull(filter, "filter"));
    return this;
  }

  /**
   * Interval of the server's keep-alive pings to each connection (grpc-java's default, 2 hours,
   * when unset). {@code tcp} sends HTTP/2 PINGs as grpc-java; transports without a ping of their
   * own ignore it (see docs/builder-methods.md).
   *
   * @param keepAliveTime the interval, more than 0
   * @param timeUnit the unit of {@code keepAliveTime}
   * @return this builder
   * @throws IllegalArgumentException if {@code keepAliveTime} is 0 or less
   */
  @Override
  public TernServerBuilder keepAliveTime(long keepAliveTime, TimeUnit timeUnit) {
    options = options.with(TransportOptions.KEEP_ALIVE_MILLIS, positiveMillis("keepAliveTime", keepAliveTime, timeUnit));
    return this;
  }

  /**
   * How long a keep-alive ping may go unanswered before the connection is closed (20 s, as
   * grpc-java).
   *
   * @param keepAliveTimeout the timeout, more than 0
   * @param timeUnit the unit of {@code keepAliveTimeout}
   * @return this builder
   * @throws IllegalArgumentException if {@code keepAliveTimeout} is 0 or less
   */
  @Override
  public TernServerBuilder keepAliveTimeout(long keepAliveTimeout, TimeUnit timeUnit) {
    options = options.with(TransportOptions.KEEP_ALIVE_TIMEOUT_MILLIS,
        positiveMillis("keepAliveTimeout", keepAliveTimeout, timeUnit));
    return this;
  }

  /**
   * Closes (with GOAWAY) a connection that has had no call open for this long. Unlike grpc-java,
   * on by default on {@code tcp} and {@code quic}: 5 minutes ({@link
   * TransportOptions#DEFAULT_SERVER_IDLE_TIMEOUT_MILLIS} says why), so that connections that send
   * the HTTP/2 preface and go quiet cannot hold the server's file descriptors for ever; {@code
   * Long.MAX_VALUE} (or any time over a year) turns it off, as in grpc-java. Carried out on {@code
   * tcp} (the connection is closed once the client has acknowledged the GOAWAY's PING, or 10 s
   * later), {@code quic} (whose own idle timeout, {@code QuicTransportOptions.MAX_IDLE_TIMEOUT_MILLIS},
   * also closes connections that exchange no packets) and {@code udp} (off by default there; it
   * drains the connection: docs/protocol.md §10.7). docs/limits.md lists every limit's default.
   *
   * @param maxConnectionIdle the idle time, more than 0
   * @param timeUnit the unit of {@code maxConnectionIdle}
   * @return this builder
   * @throws IllegalArgumentException if {@code maxConnectionIdle} is 0 or less
   */
  @Override
  public TernServerBuilder maxConnectionIdle(long maxConnectionIdle, TimeUnit timeUnit) {
    options = options.with(TransportOptions.IDLE_TIMEOUT_MILLIS,
        positiveMillis("maxConnectionIdle", maxConnectionIdle, timeUnit));
    return this;
  }

  /**
   * Sends GOAWAY to a connection once it is this old (with up to ±10% jitter, as grpc-java), so
   * that clients reconnect and spread over servers behind a load balancer; off by default.
   * Carried out on {@code tcp}, {@code quic} and {@code udp}. Calls a client had not yet sent, or that the
   * server refused unprocessed, are replayed on a new connection by the client's transparent
   * retry.
   *
   * @param maxConnectionAge the age, more than 0
   * @param timeUnit the unit of {@code maxConnectionAge}
   * @return this builder
   * @throws IllegalArgumentException if {@code maxConnectionAge} is 0 or less
   */
  @Override
  public TernServerBuilder maxConnectionAge(long maxConnectionAge, TimeUnit timeUnit) {
    options = options.with(TransportOptions.MAX_CONNECTION_AGE_MILLIS,
        positiveMillis("maxConnectionAge", maxConnectionAge, timeUnit));
    return this;
  }

  /**
   * How long calls still open on a connection past its {@link #maxConnectionAge} may run before
   * the connection is closed; unbounded by default, as grpc-java.
   *
   * @param maxConnectionAgeGrace the grace time, 0 or more
   * @param timeUnit the unit of {@code maxConnectionAgeGrace}
   * @return this builder
   * @throws IllegalArgumentException if {@code maxConnectionAgeGrace} is negative
   */
  @Override
  public TernServerBuilder maxConnectionAgeGrace(long maxConnectionAgeGrace, TimeUnit timeUnit) {
    if (maxConnectionAgeGrace < 0) {
      throw new IllegalArgumentException("maxConnectionAgeGrace must be >= 0, was " + maxConnectionAgeGrace);
    }
    // 0 would read as "unbounded": the shortest bounded grace is 1 ms.
    options = options.with(TransportOptions.MAX_CONNECTION_AGE_GRACE_MILLIS,
        Math.max(1, timeUnit.toMillis(maxConnectionAgeGrace)));
    return this;
  }

  /**
   * The shortest interval between a client's HTTP/2 keep-alive pings that the server accepts (5
   * minutes, as grpc-java; {@code tcp}). A client that pings more often is sent GOAWAY {@code too_many_pings}; a Tern
   * or grpc-java client then doubles its interval. Set it at or below the clients' {@code
   * keepAliveTime} when they ping more often.
   *
   * @param keepAliveTime the shortest accepted interval, 0 or more
   * @param timeUnit the unit of {@code keepAliveTime}
   * @return this builder
   * @throws IllegalArgumentException if {@code keepAliveTime} is negative
   */
  @Override
  public TernServerBuilder permitKeepAliveTime(long keepAliveTime, TimeUnit timeUnit) {
    if (keepAliveTime < 0) {
      throw new IllegalArgumentException("permitKeepAliveTime must be >= 0, was " + keepAliveTime);
    }
    options = options.with(TransportOptions.PERMIT_KEEP_ALIVE_MILLIS, timeUnit.toMillis(keepAliveTime));
    return this;
  }

  /**
   * Limits the RST_STREAM frames a client may send on one connection to {@code maxRstStream} per
   * {@code secondsPerWindow}; a connection past it is sent GOAWAY {@code ENHANCE_YOUR_CALM} and
   * closed, as grpc-java's {@code NettyServerBuilder.maxRstFramesPerWindow} does, but drained first,
   * so that the client's other calls end normally (docs/limits.md). This defends
   * against HTTP/2 "rapid reset" (CVE-2023-44487), where a client opens streams and resets them at
   * once, so that the server starts call after call while the client stays under its stream
   * limit. Unlike grpc-java, on by default: 200 per 10 s ({@link
   * TransportOptions#MAX_RST_FRAMES_PER_WINDOW} says why). gRPC clients reset the calls they cancel
   * (a deadline, a hedged call), so a limit set too low fails legitimate clients. Carried out on
   * {@code tcp} and on {@code quic}, where it counts the streams a client resets (RESET_STREAM or
   * STOP_SENDING) before the server has answered them and closes the connection with {@code
   * H3_EXCESSIVE_LOAD} past the limit; {@code udp} ignores it.
   *
   * @param maxRstStream the RST_STREAM frames allowed per connection per window, more than 0, or
   *     {@code Integer.MAX_VALUE} for no limit
   * @param secondsPerWindow the window, in seconds, more than 0
   * @return this builder
   * @throws IllegalArgumentException if {@code maxRstStream} or {@code secondsPerWindow} is 0 or less
   */
  public TernServerBuilder maxRstFramesPerWindow(int maxRstStream, int secondsPerWindow) {
    if (maxRstStream <= 0) {
      throw new IllegalArgumentException("maxRstStream must be > 0 (Integer.MAX_VALUE: no limit), was " + maxRstStream);
    }
    if (secondsPerWindow <= 0) {
      throw new IllegalArgumentException("secondsPerWindow must be > 0, was " + secondsPerWindow);
    }
    options = options.with(TransportOptions.MAX_RST_FRAMES_PER_WINDOW, maxRstStream == Integer.MAX_VALUE ? 0 : maxRstStream)
        .with(TransportOptions.RST_FRAMES_WINDOW_SECONDS, secondsPerWindow);
    return this;
  }

  /**
   * The most connections each of this server's transports holds at once, established and in
   * handshake together (10,000 by default; {@link TransportOptions#MAX_CONNECTIONS} says why). A
   * connection beyond it is refused at once and counted; the connections already open and their
   * calls are untouched. {@code tcp} closes the socket as it is accepted; {@code quic} answers with a
   * Retry and then CONNECTION_REFUSED; {@code udp} drops the INITIAL (its own {@code
   * udp.maxConnections}, if set, wins). There is deliberately no limit per client address: many
   * phones share one carrier NAT address. QUIC's limits on handshakes in progress are {@code
   * QuicTransportOptions.MAX_HANDSHAKES} and {@code MAX_HANDSHAKES_PER_ADDRESS}.
   *
   * @param maxConnections the limit, more than 0, or {@code Integer.MAX_VALUE} for none
   * @return this builder
   * @throws IllegalArgumentException if {@code maxConnections} is 0 or less
   */
  public TernServerBuilder maxConnections(int maxConnections) {
    if (maxConnections <= 0) {
      throw new IllegalArgumentException("maxConnections must be > 0 (Integer.MAX_VALUE: no limit), was "
          + maxConnections);
    }
    options = options.with(TransportOptions.MAX_CONNECTIONS, maxConnections == Integer.MAX_VALUE ? 0 : maxConnections);
    return this;
  }

  /**
   * Whether clients may send keep-alive pings while they have no call open (false, as grpc-java).
   *
   * @param permit true to accept such pings
   * @return this builder
   */
  @Override
  public TernServerBuilder permitKeepAliveWithoutCalls(boolean permit) {
    options = options.with(TransportOptions.PERMIT_KEEP_ALIVE_WITHOUT_CALLS, permit);
    return this;
  }

  private static long positiveMillis(String what, long value, TimeUnit unit) {
    if (value <= 0) {
      throw new IllegalArgumentException(what + " must be > 0, was " + value);
    }
    return Math.max(1, unit.toMillis(value));
  }

  /**
   * Logs every call with {@code binaryLog}, as in grpc-java: the log wraps each method after the
   * interceptors have been applied, so it sees each call as it came from the transport, on every
   * transport. Closing the log stays the application's job, once the server has terminated.
   *
   * @param binaryLog the binary log, or null for none (the default)
   * @return this builder
   */
  @Override
  public TernServerBuilder setBinaryLog(BinaryLog binaryLog) {
    this.binaryLog = binaryLog;
    return this;
  }

  /**
   * Takes a metric sink, as grpc-java's server builder does (its OpenTelemetry module adds one,
   * after its stream tracer factory, which records the per-call metrics). Tern's server and
   * transports record no metric through a sink, so it receives nothing.
   *
   * @param metricSink the sink; not null
   * @return this builder
   */
  @Override
  public TernServerBuilder addMetricSink(MetricSink metricSink) {
    metricSinks.add(Objects.requireNonNull(metricSink, "metricSink"));
    return this;
  }

  private static UnsupportedOperationException unsupported(String signature, String instead) {
    return Unsupported.method("TernServerBuilder", signature, instead);
  }

  /**
   * Sets a transport option for every transport this server listens with (common keys in {@link
   * TransportOptions}, others in the transports); a transport ignores keys it does not know.
   *
   * @param <T> the option's value type
   * @param key the option; not null
   * @param value its value; null restores the key's default
   * @return this builder
   * @throws NullPointerException if {@code key} is null
   */
  public <T> TernServerBuilder transportOption(TransportOptions.Key<T> key, T value) {
    options = options.with(Objects.requireNonNull(key, "key"), value);
    return this;
  }

  /**
   * Tern protocol versions this server speaks (default {@link ProtocolVersions#SUPPORTED}).
   *
   * @param versions the versions, each more than 0, at least one
   * @return this builder
   * @throws IllegalArgumentException if empty or not all positive
   */
  public TernServerBuilder protocolVersions(int... versions) {
    protocolVersions = ProtocolVersions.validate(versions);
    return this;
  }

  /**
   * Counts this server's calls, connections, handshakes and its transports' events in {@code
   * metrics} under the name {@code "server"}; see {@link #metrics(dev.tern.rpc.metrics.TernMetrics,
   * String)}.
   *
   * @param metrics where to count; not null
   * @return this builder
   */
  public TernServerBuilder metrics(dev.tern.rpc.metrics.TernMetrics metrics) {
    return metrics(metrics, "server");
  }

  /**
   * Counts this server's calls (started, active, finished by status), connections, handshakes (in
   * progress, completed, failed, timed out) and its transports' own events (bytes, retransmissions,
   * refusals by reason, streams reset, Retry packets, 0-RTT outcomes) in {@code metrics}, per
   * transport, under {@code name}. Without it the server counts into a registry nothing reads. The
   * names and what each counts: docs/metrics.md.
   *
   * @param metrics where to count; not null
   * @param name the server's name among the registry's servers and channels (two servers with the
   *     same name add into the same counters); not null
   * @return this builder
   */
  public TernServerBuilder metrics(dev.tern.rpc.metrics.TernMetrics metrics, String name) {
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.metricsScope = Objects.requireNonNull(name, "name");
    return this;
  }

  /**
   * The server, not yet started; {@code start()} binds its addresses.
   *
   * @return a new server with this builder's services and settings
   * @throws IllegalStateException if it has nowhere to listen
   * @throws IllegalArgumentException if a {@link #listen} names a transport that is not on the
   *     class path, or one that always encrypts (QUIC) while no TLS is set
   */
  @Override
  public Server build() {
    if (listens.isEmpty()) {
      throw new IllegalStateException("no listening address: call listen(transport, address)");
    }
    TransportSelector selector = TransportSelector.fromServiceLoader(Collections.emptyList(), providers);
    for (TernServer.Listen l : listens) {
      TransportNames.check(l.transport, selector.names(), "listen(\"" + l.transport + "\", " + l.address + ")");
      if (tls == null && selector.provider(l.transport).requiresTls()) {
        throw new IllegalArgumentException("listen(\"" + l.transport + "\", " + l.address + "): '" + l.transport
            + "' needs TLS (QUIC always encrypts, RFC 9001 §4) and this server has none: call"
            + " useTransportSecurity(certChainFile, privateKeyFile) or tls(TernTls.newBuilder().keyManager(...).build())"
            + " on the TernServerBuilder");
      }
    }
    ExecutorService owned = executor == null ? DaemonThreads.cachedPool("tern-server-executor") : null;
    List<ServerStreamTracer.Factory> allTracers = new ArrayList<>(Census.serverTracerFactories(censusStats, censusTracing));
    allTracers.addAll(tracers);
    ServerConfig cfg = new ServerConfig(new ServiceRegistry(services), fallback, interceptors, allTracers,
        owned != null ? owned : executor, compressors, decompressors, maxInboundMessageSize,
        protocolVersions.clone(), callExecutors, binaryLog, transportFilters,
        options.get(TransportOptions.HANDSHAKE_TIMEOUT_MILLIS));
    cfg.advertisementMaxAgeSeconds = advertise ? advertisementMaxAgeSeconds : -1;
    if (metrics != null) {
      cfg.metrics = metrics;
      cfg.metricsScope = metricsScope;
    }
    TransportOptions o = options.with(TransportOptions.PROTOCOL_VERSIONS, protocolVersions.clone())
        .with(TransportOptions.TLS, tls)
        .with(TransportOptions.MAX_INBOUND_MESSAGE_SIZE, maxInboundMessageSize)
        .with(TransportOptions.COMPRESSOR_REGISTRY, compressors)
        .with(TransportOptions.DECOMPRESSOR_REGISTRY, decompressors);
    return new TernServer(cfg, listens, o, selector, owned);
  }
}
