package dev.tern.rpc;

import dev.tern.rpc.spi.CallPolicyProvider;
import dev.tern.rpc.spi.TlsSettings;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.rpc.spi.TransportProvider;
import io.grpc.ChannelCredentials;
import io.grpc.BinaryLog;
import io.grpc.ChannelConfigurator;
import io.grpc.ClientInterceptor;
import io.grpc.ClientTransportFilter;
import io.grpc.MetricSink;
import io.grpc.ProxyDetector;
import io.grpc.CompressorRegistry;
import io.grpc.DecompressorRegistry;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.NameResolver;
import io.grpc.NameResolverRegistry;
import io.grpc.SecurityLevel;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Builds a Tern {@link ManagedChannel}: a grpc-java channel whose calls run over the transport
 * chosen at run time from a preference order ({@link #transports}).
 *
 * <pre>{@code
 * ManagedChannel channel = TernChannelBuilder.forTarget("api.example.com:443")
 *     .transports("quic", "tcp")   // or leave unset: race QUIC against TCP
 *     .build();
 * }</pre>
 *
 * <p>Transports: {@code quic} (rpc-transport-quic), {@code tcp} (rpc-transport-tcp) and Tern's own
 * {@code udp} (rpc-transport-udp), which joins the default race when the channel pins its server's
 * key ({@code UdpTransportOptions.PINNED_SERVER_KEY}).
 *
 * <p>The channel connects lazily on its first call, queues calls while connecting, fails them with
 * {@code UNAVAILABLE} (saying why) if connecting fails, and reconnects with exponential backoff.
 * TLS is on by default, as in grpc-java; {@link #usePlaintext()} turns it off.
 *
 * <p>Choosing a transport: with no {@link #transports} set, the channel races the first available
 * datagram transport ({@code udp}, else {@code quic}) against {@code tcp}: the datagram one starts
 * at once, TCP after a {@linkplain #transportRaceHeadStart head start} (300 ms) or as soon as the
 * datagram one fails, and the first ready carries every call. Calls wait for that winner, so none
 * is ever sent twice. What worked and what failed is kept per authority in a {@link
 * TransportMemory} ({@linkplain #transportMemory one shared by the process} by default): a
 * transport that failed while a less preferred one worked is left out for a while, and the one that
 * worked is tried first next time (ahead of the transports it beat), with twice its last connect
 * time as its head start. See {@link TransportSelector} and {@link TransportMemory}.
 */
public final class TernChannelBuilder extends ManagedChannelBuilder<TernChannelBuilder> {
  private final List<dev.tern.rpc.spi.TransportProvider> providers = new ArrayList<>();
  private final Supplier<List<SocketAddress>> address;
  private String authority;
  /** The target string of a {@link #forTarget} builder; null for an address builder. */
  private String target;
  /** The target as a URI whose scheme a registered name resolver handles; null otherwise. */
  private java.net.URI resolverTarget;
  private NameResolver.Factory nameResolverFactory;
  private boolean authorityOverridden;
  /** The host and port of a {@link #forAddress(String, int)} builder, resolved at connect; else null. */
  private String host;
  private int port;
  private ProxyDetector proxyDetector;
  private final List<String> transports = new ArrayList<>();
  private TlsSettings tls = TlsSettings.forClient(null);
  private TransportOptions options = TransportOptions.defaults();
  private final List<ClientInterceptor> interceptors = new ArrayList<>();
  private Executor executor;
  private CompressorRegistry compressors = CompressorRegistry.getDefaultInstance();
  private DecompressorRegistry decompressors = DecompressorRegistry.getDefaultInstance();
  private int maxInboundMessageSize = TransportOptions.MAX_INBOUND_MESSAGE_SIZE.defaultValue();
  private String userAgent;
  private int[] protocolVersions = ProtocolVersions.SUPPORTED.clone();
  private long handshakeTimeoutNanos =
      TimeUnit.MILLISECONDS.toNanos(TransportOptions.HANDSHAKE_TIMEOUT_MILLIS.defaultValue());
  private long initialBackoffNanos = TimeUnit.SECONDS.toNanos(1);
  /** grpc-java's default idle timeout: 30 minutes. */
  private long idleTimeoutNanos = TimeUnit.MINUTES.toNanos(30);
  private long maxBackoffNanos = TimeUnit.SECONDS.toNanos(120);
  private Consumer<ConnectionInfo> connectionListener;
  private long raceHeadStartNanos = DEFAULT_RACE_HEAD_START_NANOS;
  private TransportMemory memory = TransportMemory.shared();
  private boolean retryEnabled = true;
  private String loadBalancingPolicy = ChannelBalancer.DEFAULT_POLICY;
  private Executor offloadExecutor;
  private boolean censusStats = true;
  private boolean censusTracing = true;
  /** The default service config, normalised (checked when set); null if none. */
  private Map<String, ?> defaultServiceConfig;
  private boolean serviceConfigLookUp = true;
  private int maxRetryAttempts = ServiceConfigs.DEFAULT_MAX_ATTEMPTS;
  private int maxHedgedAttempts = ServiceConfigs.DEFAULT_MAX_ATTEMPTS;
  private BinaryLog binaryLog;
  private final List<ClientTransportFilter> transportFilters = new ArrayList<>();
  private final List<MetricSink> metricSinks = new ArrayList<>();
  private dev.tern.rpc.metrics.TernMetrics metrics;
  private String metricsScope;
  private CallPolicyProvider callPolicyProvider;
  private boolean callPolicyProviderSet;

  /** The head start a channel gives its preferred transport before starting the next: 300 ms. */
  public static final long DEFAULT_RACE_HEAD_START_NANOS = TimeUnit.MILLISECONDS.toNanos(300);

  private TernChannelBuilder(Supplier<List<SocketAddress>> address, String authority) {
    this.address = address;
    this.authority = authority;
  }

  /**
   * A builder for {@code target} in the form {@code host:port} ({@code [v6addr]:port} for IPv6;
   * a leading {@code dns:///} is accepted). The host is resolved when connecting.
   *
   * @param target {@code host:port}, {@code [v6addr]:port}, optionally after {@code dns:///};
   *     the port must be in 1..65535
   * @return a new builder with TLS on, trusting the JDK's default roots
   * @throws NullPointerException if {@code target} is null
   * @throws IllegalArgumentException if {@code target} is not one {@code host:port}: it has no
   *     valid port, lists several addresses, or names a resolver scheme Tern does not have yet
   */
  public static TernChannelBuilder forTarget(String target) {
    Objects.requireNonNull(target, "target");
    java.net.URI registered = registeredSchemeTarget(target);
    if (registered != null) {
      TernChannelBuilder b = new TernChannelBuilder(null, null);
      b.target = target;
      b.resolverTarget = registered;
      return b;
    }
    TernChannelBuilder b = forHostAndPort(target);
    b.target = target;
    return b;
  }

  /**
   * {@code target} as a URI if its scheme (other than {@code dns}, which Tern resolves itself) has a
   * provider in grpc-java's default {@link NameResolverRegistry}; else null. As in grpc-java, a
   * target whose "scheme" no provider knows ({@code localhost:50051}) is a host and port.
   */
  private static java.net.URI registeredSchemeTarget(String target) {
    java.net.URI uri;
    try {
      uri = new java.net.URI(target);
    } catch (java.net.URISyntaxException e) {
      return null;
    }
    String scheme = uri.getScheme();
    if (scheme == null || scheme.equals("dns")) {
      return null;
    }
    return NameResolverRegistry.getDefaultRegistry().getProviderForScheme(scheme) == null ? null : uri;
  }

  private static TernChannelBuilder forHostAndPort(String target) {
    String t = target.startsWith("dns:///") ? target.substring("dns:///".length()) : target;
    if (t.indexOf(',') >= 0) {
      throw new IllegalArgumentException("target must be one host:port, was '" + target + "', which lists"
          + " several; give the list to a NameResolver (forTarget with a registered scheme, or"
          + " nameResolverFactory(...)) and choose a load-balancing policy with defaultLoadBalancingPolicy(...)");
    }
    int scheme = t.indexOf("://");
    if (scheme >= 0 || t.startsWith("dns:")) {
      throw new IllegalArgumentException("target must be host:port (optionally after dns:///) or name a scheme"
          + " a registered name resolver handles, was '" + target + "'; grpc-java's NameResolverRegistry has "
          + NameResolverRegistry.getDefaultRegistry().asFactory().getDefaultScheme() + " as its default scheme and"
          + " no provider for '" + t.substring(0, Math.max(0, scheme)) + "': register a NameResolverProvider, or"
          + " use nameResolverFactory(...)");
    }
    int colon = t.lastIndexOf(':');
    if (colon <= 0 || colon == t.length() - 1) {
      throw new IllegalArgumentException("target must be host:port, was '" + target + "' (no port)");
    }
    String host = t.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    } else if (host.indexOf(':') >= 0) {
      throw new IllegalArgumentException("target must be host:port, was '" + target
          + "'; write an IPv6 address in brackets: [::1]:port");
    }
    int port;
    try {
      port = Integer.parseInt(t.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("target must be host:port with a numeric port, was '" + target + "'", e);
    }
    return forAddress(host, port);
  }

  /**
   * A builder for {@code target} (as {@link #forTarget(String)}) secured by grpc-java {@code
   * credentials}, as {@code Grpc.newChannelBuilder(target, credentials)}: {@code
   * TlsChannelCredentials} with PEM or key and trust managers, or {@code
   * InsecureChannelCredentials} for plaintext.
   *
   * @param target {@code host:port} as for {@link #forTarget(String)}
   * @param credentials the channel credentials; not null
   * @return a new builder secured by {@code credentials}
   * @throws NullPointerException if {@code credentials} or {@code target} is null
   * @throws IllegalArgumentException if the credentials carry something Tern cannot use, naming it,
   *     or if {@code target} is not valid (as for {@link #forTarget(String)})
   */
  public static TernChannelBuilder forTarget(String target, ChannelCredentials credentials) {
    Objects.requireNonNull(credentials, "credentials");
    TlsSettings settings = Credentials.client(credentials);
    TernChannelBuilder b = forTarget(target);
    b.tls = settings;
    return b;
  }

  /**
   * Secures the channel with grpc-java {@code credentials} (as {@link #forTarget(String,
   * ChannelCredentials)}), replacing earlier TLS settings.
   *
   * @param credentials {@code TlsChannelCredentials} or {@code InsecureChannelCredentials}; not
   *     null
   * @return this builder
   * @throws NullPointerException if {@code credentials} is null
   * @throws IllegalArgumentException if the credentials carry something Tern cannot use, naming it
   */
  public TernChannelBuilder credentials(ChannelCredentials credentials) {
    tls = Credentials.client(Objects.requireNonNull(credentials, "credentials"));
    return this;
  }

  /**
   * A builder for {@code host} and {@code port}; the host is resolved when connecting.
   *
   * @param host a host name or IP literal (an IPv6 literal without brackets); not null
   * @param port the server's port, 1..65535
   * @return a new builder with TLS on, trusting the JDK's default roots; its authority is {@code
   *     host:port} ({@code [host]:port} for IPv6)
   * @throws NullPointerException if {@code host} is null
   * @throws IllegalArgumentException if {@code port} is outside 1..65535
   */
  public static TernChannelBuilder forAddress(String host, int port) {
    Objects.requireNonNull(host, "host");
    if (port <= 0 || port > 65535) {
      throw new IllegalArgumentException("port must be in 1..65535, was " + port);
    }
    String authority = host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    TernChannelBuilder b = new TernChannelBuilder(() -> resolveAll(host, port), authority);
    b.host = host;
    b.port = port;
    return b;
  }

  /**
   * {@code host:port} through {@code detector} first: a proxied target is the one address, left
   * for the proxy to resolve; else {@link #resolveAll(String, int)}.
   */
  static List<SocketAddress> resolveAll(String host, int port, ProxyDetector detector) {
    io.grpc.ProxiedSocketAddress proxied;
    try {
      proxied = detector.proxyFor(InetSocketAddress.createUnresolved(host, port));
    } catch (java.io.IOException | RuntimeException e) {
      throw io.grpc.Status.UNAVAILABLE.withDescription("looking up the proxy for " + host + ":" + port
          + " failed: " + e).withCause(e).asRuntimeException();
    }
    return proxied != null ? Collections.singletonList(proxied) : resolveAll(host, port);
  }

  /**
   * Every address {@code host} resolves to, each with {@code port}, address families alternating
   * from the resolver's first answer (RFC 8305 §4), so that a connect tries an address of the other
   * family second; an unresolvable host gives one unresolved address, which the transports report.
   * Blocks on DNS: called on the channel's offload executor.
   */
  static List<SocketAddress> resolveAll(String host, int port) {
    java.net.InetAddress[] all;
    try {
      all = java.net.InetAddress.getAllByName(host);
    } catch (java.net.UnknownHostException e) {
      return Collections.singletonList(InetSocketAddress.createUnresolved(host, port));
    }
    List<SocketAddress> first = new ArrayList<>();
    List<SocketAddress> other = new ArrayList<>();
    Class<?> family = all[0].getClass();
    for (java.net.InetAddress a : all) {
      (a.getClass() == family ? first : other).add(new InetSocketAddress(a, port));
    }
    List<SocketAddress> out = new ArrayList<>(all.length);
    for (int i = 0; i < Math.max(first.size(), other.size()); i++) {
      if (i < first.size()) {
        out.add(first.get(i));
      }
      if (i < other.size()) {
        out.add(other.get(i));
      }
    }
    return out;
  }

  /**
   * A builder whose channel gets its address from {@code resolver} before each connection attempt
   * (on the offload executor), with {@code authority}: for tests of resolution.
   */
  static TernChannelBuilder forResolver(Supplier<SocketAddress> resolver, String authority) {
    Objects.requireNonNull(resolver, "resolver");
    return new TernChannelBuilder(() -> Collections.singletonList(resolver.get()), authority);
  }

  /** As {@link #forResolver}, for a resolver that gives several addresses, tried in order. */
  static TernChannelBuilder forAddresses(Supplier<List<SocketAddress>> resolver, String authority) {
    return new TernChannelBuilder(Objects.requireNonNull(resolver, "resolver"), authority);
  }

  /**
   * A builder for an already-resolved address, or a transport's own address type. The authority
   * is {@code host:port} for an {@link InetSocketAddress}, else the address's {@code toString()}.
   *
   * @param address where to connect; not null
   * @return a new builder with TLS on, trusting the JDK's default roots
   * @throws NullPointerException if {@code address} is null
   */
  public static TernChannelBuilder forAddress(SocketAddress address) {
    Objects.requireNonNull(address, "address");
    String authority = address instanceof InetSocketAddress
        ? ((InetSocketAddress) address).getHostString() + ":" + ((InetSocketAddress) address).getPort()
        : address.toString();
    List<SocketAddress> only = Collections.singletonList(address);
    return new TernChannelBuilder(() -> only, authority);
  }

  /**
   * Transports to use, most preferred first, by {@link dev.tern.rpc.spi.TransportProvider#name()}.
   * One name: only that transport is used (as long as it is on the class path and available).
   * Several: those on the class path and available are raced in the order given, each started
   * after the previous one's {@linkplain #transportRaceHeadStart head start} or as soon as every
   * started one has failed; the first ready carries the calls. Unset: {@link
   * TransportSelector#DEFAULT_PREFERENCE}, racing the first datagram transport against TCP. A
   * name that is not on the class path (lower case: {@code "tcp"}, {@code "quic"}) makes {@link
   * #build()} throw, naming the known ones.
   *
   * @param names transport names, most preferred first; none: back to the default preference
   * @return this builder
   * @throws NullPointerException if a name is null
   */
  public TernChannelBuilder transports(String... names) {
    transports.clear();
    for (String n : names) {
      transports.add(Objects.requireNonNull(n, "transport name"));
    }
    return this;
  }

  /**
   * No TLS, as in grpc-java. Transports that always encrypt ({@code quic}) cannot run plaintext:
   * naming one in {@link #transports} then makes {@link #build()} throw, and the default race
   * leaves it out.
   *
   * @return this builder
   */
  @Override
  public TernChannelBuilder usePlaintext() {
    tls = null;
    return this;
  }

  /**
   * TLS trusting the JDK's default roots (the default), replacing earlier TLS settings.
   *
   * @return this builder
   */
  @Override
  public TernChannelBuilder useTransportSecurity() {
    tls = TlsSettings.forClient(null);
    return this;
  }

  /**
   * TLS with these settings: whom to trust (PEM, a {@code KeyStore}, a trust manager), a client
   * certificate for mutual TLS, a server-name override. Replaces earlier TLS settings.
   *
   * @param settings built by {@link TernTls#newBuilder()}; not null
   * @return this builder
   * @throws NullPointerException if {@code settings} is null
   */
  public TernChannelBuilder tls(TernTls settings) {
    tls = Objects.requireNonNull(settings, "settings").settings();
    return this;
  }

  /**
   * TLS with these transport-level settings (what {@link #tls(TernTls)} builds; kept for code that
   * already has {@link TlsSettings}). Replaces earlier TLS settings.
   *
   * @param settings client TLS settings; not null
   * @return this builder
   * @throws NullPointerException if {@code settings} is null
   */
  public TernChannelBuilder tls(TlsSettings settings) {
    tls = Objects.requireNonNull(settings, "settings");
    return this;
  }

  /**
   * Sets a transport option (common keys in {@link TransportOptions}, others in the transports,
   * such as {@code QuicTransportOptions}); a transport ignores keys it does not know. A later
   * call for the same key replaces the value.
   *
   * @param <T> the option's value type
   * @param key the option; not null
   * @param value its value; null restores the key's default
   * @return this builder
   * @throws NullPointerException if {@code key} is null
   */
  public <T> TernChannelBuilder transportOption(TransportOptions.Key<T> key, T value) {
    options = options.with(Objects.requireNonNull(key, "key"), value);
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
  public TernChannelBuilder addTransportProvider(dev.tern.rpc.spi.TransportProvider provider) {
    providers.add(Objects.requireNonNull(provider, "provider"));
    return this;
  }

  /**
   * Adds interceptors, as in grpc-java: the last added runs first on each call. Calls on every
   * transport pass through them.
   *
   * @param list the interceptors
   * @return this builder
   */
  @Override
  public TernChannelBuilder intercept(List<ClientInterceptor> list) {
    interceptors.addAll(list);
    return this;
  }

  /**
   * Adds interceptors, as {@link #intercept(List)}.
   *
   * @param list the interceptors
   * @return this builder
   */
  @Override
  public TernChannelBuilder intercept(ClientInterceptor... list) {
    return intercept(Arrays.asList(list));
  }

  /**
   * The executor that runs call listeners, as in grpc-java (a call's {@code
   * CallOptions.withExecutor} wins over it). Unset, each channel runs a cached pool of its own
   * and stops it on shutdown; one given here stays the application's to shut down.
   *
   * @param e the executor; not null
   * @return this builder
   * @throws NullPointerException if {@code e} is null
   */
  @Override
  public TernChannelBuilder executor(Executor e) {
    executor = Objects.requireNonNull(e, "executor");
    return this;
  }

  /**
   * Runs call listeners on the transport's own thread, as in grpc-java: fastest, but a listener
   * that blocks stalls the connection.
   *
   * @return this builder
   */
  @Override
  public TernChannelBuilder directExecutor() {
    executor = Runnable::run;
    return this;
  }

  /**
   * Largest response message accepted (4 MiB by default); larger ones fail the call with
   * RESOURCE_EXHAUSTED. Honoured by every transport.
   *
   * @param bytes the limit in bytes, 0 or more
   * @return this builder
   * @throws IllegalArgumentException if {@code bytes} is negative
   */
  @Override
  public TernChannelBuilder maxInboundMessageSize(int bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("maxInboundMessageSize must be >= 0, was " + bytes);
    }
    maxInboundMessageSize = bytes;
    return this;
  }

  /**
   * The {@code user-agent} this channel announces, as in grpc-java (added ahead of grpc-java's
   * own part); null (the default): grpc-java's alone. Sent by {@code tcp} and {@code inprocess};
   * {@code quic} and {@code udp} do not send it yet (docs/builder-methods.md).
   *
   * @param ua the user agent, or null
   * @return this builder
   */
  @Override
  public TernChannelBuilder userAgent(String ua) {
    userAgent = ua;
    return this;
  }

  /**
   * The authority sent with calls and used as the TLS server name, as in grpc-java, instead of
   * the target's {@code host:port}; the address connected to does not change.
   *
   * @param a the authority; not null
   * @return this builder
   * @throws NullPointerException if {@code a} is null
   */
  @Override
  public TernChannelBuilder overrideAuthority(String a) {
    authority = Objects.requireNonNull(a, "authority");
    authorityOverridden = true;
    return this;
  }

  /** {@code target} with {@code scheme} in front when it names none ({@code host:port}). */
  private static java.net.URI withScheme(String target, String scheme) {
    try {
      java.net.URI uri = new java.net.URI(target);
      if (uri.getScheme() != null && uri.getAuthority() != null) {
        return uri;
      }
    } catch (java.net.URISyntaxException e) {
      // not a URI: a host and port
    }
    try {
      return new java.net.URI(scheme, "", "/" + target, null);
    } catch (java.net.URISyntaxException e) {
      throw new IllegalArgumentException("target '" + target + "' cannot be given to the name resolver", e);
    }
  }

  /**
   * Not supported: Tern resolves {@code host:port} targets itself.
   *
   * @param factory ignored
   * @return never returns
   * @throws UnsupportedOperationException always
   */
  @Override
  @Deprecated
  public TernChannelBuilder nameResolverFactory(NameResolver.Factory factory) {
    if (target == null) {
      // As grpc-java: a channel built for an address has no target to resolve.
      throw new IllegalStateException("nameResolverFactory(...) needs a channel built forTarget(...);"
          + " this one was built for an address");
    }
    nameResolverFactory = Objects.requireNonNull(factory, "factory");
    return this;
  }

  /**
   * Decompressors for responses, as in grpc-java (the default registry has gzip); honoured by
   * every transport.
   *
   * @param registry the registry; not null
   * @return this builder
   * @throws NullPointerException if {@code registry} is null
   */
  @Override
  public TernChannelBuilder decompressorRegistry(DecompressorRegistry registry) {
    decompressors = Objects.requireNonNull(registry, "registry");
    return this;
  }

  /**
   * Compressors for requests, as in grpc-java (the default registry has gzip); honoured by
   * every transport.
   *
   * @param registry the registry; not null
   * @return this builder
   * @throws NullPointerException if {@code registry} is null
   */
  @Override
  public TernChannelBuilder compressorRegistry(CompressorRegistry registry) {
    compressors = Objects.requireNonNull(registry, "registry");
    return this;
  }

  /**
   * How long the channel stays connected with no call open before it goes idle, as grpc-java (30
   * minutes by default): its connection is closed gracefully, the state becomes {@code IDLE}, and
   * the next call connects again (the transport race runs anew). Values under one second are
   * raised to one second; 30 days or more disable idle mode, as in grpc-java.
   *
   * @param value the idle time, more than 0
   * @param unit the unit of {@code value}
   * @return this builder
   * @throws IllegalArgumentException if {@code value} is 0 or less
   */
  @Override
  public TernChannelBuilder idleTimeout(long value, TimeUnit unit) {
    if (value <= 0) {
      throw new IllegalArgumentException("idle timeout must be > 0, was " + value);
    }
    long nanos = unit.toNanos(value);
    idleTimeoutNanos = nanos >= TimeUnit.DAYS.toNanos(30) ? 0 : Math.max(nanos, TimeUnit.SECONDS.toNanos(1));
    return this;
  }

  /**
   * Tern protocol versions this client speaks (default {@link ProtocolVersions#SUPPORTED}).
   *
   * @param versions the versions, each more than 0, at least one
   * @return this builder
   * @throws IllegalArgumentException if empty or not all positive
   */
  public TernChannelBuilder protocolVersions(int... versions) {
    protocolVersions = ProtocolVersions.validate(versions);
    return this;
  }

  /**
   * Longest a connection's handshake may take before the attempt fails (default 20 s). Honoured
   * by {@code tcp} (TLS) and {@code quic} (QUIC handshake).
   *
   * @param value the timeout, more than 0
   * @param unit the unit of {@code value}
   * @return this builder
   * @throws IllegalArgumentException if {@code value} is 0 or less
   */
  public TernChannelBuilder handshakeTimeout(long value, TimeUnit unit) {
    if (value <= 0) {
      throw new IllegalArgumentException("handshake timeout must be > 0, was " + value);
    }
    handshakeTimeoutNanos = unit.toNanos(value);
    return this;
  }

  /**
   * First delay before reconnecting after a failed attempt (default 1 s); each further failure
   * multiplies it by 1.6, up to 120 s (or this value, if larger).
   *
   * @param value the delay, more than 0
   * @param unit the unit of {@code value}
   * @return this builder
   * @throws IllegalArgumentException if {@code value} is 0 or less
   */
  public TernChannelBuilder initialReconnectBackoff(long value, TimeUnit unit) {
    if (value <= 0) {
      throw new IllegalArgumentException("reconnect backoff must be > 0, was " + value);
    }
    initialBackoffNanos = unit.toNanos(value);
    maxBackoffNanos = Math.max(maxBackoffNanos, initialBackoffNanos);
    return this;
  }

  /**
   * How long a racing transport has to itself before the next candidate starts too (default 300
   * ms; 0 starts every candidate at once). A candidate that fails ends its head start early.
   *
   * @param value the head start, 0 or more
   * @param unit the unit of {@code value}
   * @return this builder
   * @throws IllegalArgumentException if {@code value} is negative
   */
  public TernChannelBuilder transportRaceHeadStart(long value, TimeUnit unit) {
    if (value < 0) {
      throw new IllegalArgumentException("transport race head start must be >= 0, was " + value);
    }
    raceHeadStartNanos = unit.toNanos(value);
    return this;
  }

  /**
   * Where the channel keeps and reads what it learned per authority (transports marked broken,
   * the transport that worked). Default: {@link TransportMemory#shared()}.
   *
   * @param transportMemory the memory; a fresh {@link TransportMemory} starts with nothing learned,
   *     or with what its {@linkplain TransportMemory.Builder#sessionStore store} kept from an earlier
   *     run of the application
   * @return this builder
   * @throws NullPointerException if {@code transportMemory} is null
   */
  public TernChannelBuilder transportMemory(TransportMemory transportMemory) {
    memory = Objects.requireNonNull(transportMemory, "transportMemory");
    return this;
  }

  /**
   * Who carries out the channel's retry and hedging policies and keeps its circuit breakers. By
   * default the first {@link CallPolicyProvider} found with {@link java.util.ServiceLoader}: the
   * resilience module ({@code rpc-resilience}) when it is on the class path, else none (the
   * policies are then ignored, and logged so). Give a configured one here (its breaker settings,
   * its listener), or null to use none even when the module is on the class path.
   *
   * @param provider the provider; null for none
   * @return this builder
   */
  public TernChannelBuilder callPolicyProvider(CallPolicyProvider provider) {
    callPolicyProvider = provider;
    callPolicyProviderSet = true;
    return this;
  }

  /**
   * Called with the connection's {@link ConnectionInfo} each time a transport wins a race and
   * becomes the channel's connection; {@link ConnectionInfo#transport()} names it. It runs on a
   * transport thread, so it should return quickly.
   *
   * @param listener the listener, or null for none (the default)
   * @return this builder
   */
  public TernChannelBuilder connectionListener(Consumer<ConnectionInfo> listener) {
    connectionListener = listener;
    return this;
  }

  /**
   * Largest response header block (metadata), in bytes (8 KiB by default), as in grpc-java. Every
   * transport fails a call whose response headers or trailers are over it: {@code tcp} as HTTP/2's
   * {@code SETTINGS_MAX_HEADER_LIST_SIZE} ({@code INTERNAL}, as grpc-netty), {@code quic} as
   * HTTP/3's {@code SETTINGS_MAX_FIELD_SECTION_SIZE} ({@code INTERNAL}), in-process and {@code
   * udp} with {@code RESOURCE_EXHAUSTED} (udp accepts at least 1 KiB); see docs/errors.md.
   *
   * @param bytes the limit, more than 0
   * @return this builder
   * @throws IllegalArgumentException if {@code bytes} is 0 or less
   */
  @Override
  public TernChannelBuilder maxInboundMetadataSize(int bytes) {
    if (bytes <= 0) {
      throw new IllegalArgumentException("maxInboundMetadataSize must be > 0, was " + bytes);
    }
    options = options.with(TransportOptions.MAX_INBOUND_METADATA_SIZE, bytes);
    return this;
  }

  /**
   * Keep-alive ping interval while calls are open (and without calls if {@link
   * #keepAliveWithoutCalls}), on transports that ping: {@code tcp} sends HTTP/2 PING frames, off by
   * default as grpc-java; {@code quic} ignores it (QUIC keeps its own idle timeout). A server
   * accepts pings no more often than its {@code permitKeepAliveTime} (5 minutes by default).
   *
   * @param value the interval, more than 0 (rounded up to at least 1 ms)
   * @param unit the unit of {@code value}
   * @return this builder
   * @throws IllegalArgumentException if {@code value} is 0 or less
   */
  @Override
  public TernChannelBuilder keepAliveTime(long value, TimeUnit unit) {
    if (value <= 0) {
      throw new IllegalArgumentException("keepAliveTime must be > 0, was " + value);
    }
    options = options.with(TransportOptions.KEEP_ALIVE_MILLIS, Math.max(1, unit.toMillis(value)));
    return this;
  }

  /**
   * Whether OpenCensus stats are recorded for this channel's calls (true by default), as grpc-java's builders
   * do when {@code io.grpc:grpc-census} is on the class path: without it this has no effect. Turn
   * it off to install census with settings of your own, through {@link #intercept} (grpc-java offers this switch
   * only through its internal builder accessors).
   *
   * @param enabled false to leave census stats out
   * @return this builder
   */
  public TernChannelBuilder censusStats(boolean enabled) {
    censusStats = enabled;
    return this;
  }

  /**
   * Whether OpenCensus tracing spans are made for this channel's calls and carried in {@code grpc-trace-bin} (true
   * by default), as grpc-java's builders do when {@code io.grpc:grpc-census} is on the class path:
   * without it this has no effect.
   *
   * @param enabled false to leave census tracing out
   * @return this builder
   */
  public TernChannelBuilder censusTracing(boolean enabled) {
    censusTracing = enabled;
    return this;
  }

  /**
   * Turns off retries (as in grpc-java): a call whose stream a connection refused unprocessed, for
   * instance one still queued when the server sent GOAWAY, fails UNAVAILABLE instead of being sent
   * again on a new connection (transparent retry), and the service config's {@code retryPolicy},
   * {@code hedgingPolicy} and {@code retryThrottling} are not read.
   *
   * @return this builder
   */
  @Override
  public TernChannelBuilder disableRetry() {
    retryEnabled = false;
    options = options.with(TransportOptions.TRANSPARENT_RETRY, false);
    return this;
  }

  /**
   * Leaves out the service config a name resolver gives, as in grpc-java: the channel's calls get
   * the {@link #defaultServiceConfig default service config} (or none) whatever the resolver says.
   * See docs/service-config.md.
   *
   * @return this builder
   */
  @Override
  public TernChannelBuilder disableServiceConfigLookUp() {
    serviceConfigLookUp = false;
    return this;
  }

  /**
   * Where the channel runs blocking work, as in grpc-java: resolving the target's host name
   * (which may block on DNS) before each connection attempt. Unset, a shared pool of daemon
   * threads does it; never the caller's thread or the timer that fires deadlines. The channel
   * does not shut it down.
   *
   * @param e the executor; not null
   * @return this builder
   * @throws NullPointerException if {@code e} is null
   */
  @Override
  public TernChannelBuilder offloadExecutor(Executor e) {
    offloadExecutor = Objects.requireNonNull(e, "executor");
    return this;
  }

  /**
   * Retry on, the default as in grpc-java: a call whose stream a connection refused unprocessed
   * (one still queued when the server sent GOAWAY, say) is sent again, once, on a new connection
   * (transparent retry), and the service config's retry and hedging policies are read and handed
   * to each call ({@link TernCallOptions#RETRY_POLICY}, {@link TernCallOptions#HEDGING_POLICY})
   * for the resilience module to carry out; without it on the class path they are ignored, with a
   * warning logged once.
   *
   * @return this builder
   */
  @Override
  public TernChannelBuilder enableRetry() {
    retryEnabled = true;
    options = options.with(TransportOptions.TRANSPARENT_RETRY, true);
    return this;
  }

  /** Whether {@link #enableRetry()} (true, the default as in grpc-java) or {@link #disableRetry()} was last called. */
  boolean retryEnabled() {
    return retryEnabled;
  }

  /**
   * Most attempts, the first included, a service config's retry policy may give a call (5 by
   * default, as grpc-java): a policy's larger {@code maxAttempts} is lowered to this. 1 allows no
   * retry at all: the policies are then not handed on.
   *
   * @param maxRetryAttempts the cap, 1 or more
   * @return this builder
   * @throws IllegalArgumentException if {@code maxRetryAttempts} is less than 1
   */
  @Override
  public TernChannelBuilder maxRetryAttempts(int maxRetryAttempts) {
    if (maxRetryAttempts < 1) {
      throw new IllegalArgumentException("maxRetryAttempts must be >= 1, was " + maxRetryAttempts);
    }
    this.maxRetryAttempts = maxRetryAttempts;
    return this;
  }

  /**
   * Most copies of a call, the first included, a service config's hedging policy may send (5 by
   * default, as grpc-java): a policy's larger {@code maxAttempts} is lowered to this. 1 allows no
   * hedging at all: the policies are then not handed on.
   *
   * @param maxHedgedAttempts the cap, 1 or more
   * @return this builder
   * @throws IllegalArgumentException if {@code maxHedgedAttempts} is less than 1
   */
  @Override
  public TernChannelBuilder maxHedgedAttempts(int maxHedgedAttempts) {
    if (maxHedgedAttempts < 1) {
      throw new IllegalArgumentException("maxHedgedAttempts must be >= 1, was " + maxHedgedAttempts);
    }
    this.maxHedgedAttempts = maxHedgedAttempts;
    return this;
  }

  /**
   * Most request bytes the channel's calls keep together for transparent retries (16 MiB by
   * default, as grpc-java); past it, a call that sends more can no longer be replayed.
   *
   * @param bytes the limit, more than 0
   * @return this builder
   * @throws IllegalArgumentException if {@code bytes} is 0 or less
   */
  @Override
  public TernChannelBuilder retryBufferSize(long bytes) {
    if (bytes <= 0) {
      throw new IllegalArgumentException("retryBufferSize must be > 0, was " + bytes);
    }
    options = options.with(TransportOptions.RETRY_BUFFER_SIZE, bytes);
    return this;
  }

  /**
   * Most request bytes one call keeps for a transparent retry (1 MiB by default, as grpc-java); a
   * call that sends more can no longer be replayed on another connection.
   *
   * @param bytes the limit, more than 0
   * @return this builder
   * @throws IllegalArgumentException if {@code bytes} is 0 or less
   */
  @Override
  public TernChannelBuilder perRpcBufferLimit(long bytes) {
    if (bytes <= 0) {
      throw new IllegalArgumentException("perRpcBufferLimit must be > 0, was " + bytes);
    }
    options = options.with(TransportOptions.PER_RPC_BUFFER_LIMIT, bytes);
    return this;
  }

  /**
   * How long a keep-alive ping may go unanswered before the connection is declared dead and its
   * calls fail UNAVAILABLE (20 s, as grpc-java).
   *
   * @param keepAliveTimeout the timeout, more than 0
   * @param timeUnit the unit of {@code keepAliveTimeout}
   * @return this builder
   * @throws IllegalArgumentException if {@code keepAliveTimeout} is 0 or less
   */
  @Override
  public TernChannelBuilder keepAliveTimeout(long keepAliveTimeout, TimeUnit timeUnit) {
    if (keepAliveTimeout <= 0) {
      throw new IllegalArgumentException("keepAliveTimeout must be > 0, was " + keepAliveTimeout);
    }
    options = options.with(TransportOptions.KEEP_ALIVE_TIMEOUT_MILLIS, Math.max(1, timeUnit.toMillis(keepAliveTimeout)));
    return this;
  }

  /**
   * Whether keep-alive pings are sent while no call is open (false, as grpc-java). A server
   * polices such pings: grpc-java's and Tern's servers refuse them unless {@code
   * permitKeepAliveWithoutCalls(true)}.
   *
   * @param enable true to ping without calls
   * @return this builder
   */
  @Override
  public TernChannelBuilder keepAliveWithoutCalls(boolean enable) {
    options = options.with(TransportOptions.KEEP_ALIVE_WITHOUT_CALLS, enable);
    return this;
  }

  /**
   * The load-balancing policy used when the service config names none, as in grpc-java: a name in
   * grpc-java's {@link io.grpc.LoadBalancerRegistry}, {@code "pick_first"} (the default: one
   * connection, to the first address that answers) or {@code "round_robin"} (a connection to every
   * resolved address, calls spread over the ready ones), or a custom policy's. Each backend's
   * connection races the channel's transports ({@link #transports}). With grpc-java's {@code
   * grpc-services} on the class path, {@code round_robin} checks each backend's health when the
   * service config has a {@code healthCheckConfig}.
   *
   * @param policy the policy's name
   * @return this builder
   * @throws NullPointerException if {@code policy} is null
   */
  @Override
  public TernChannelBuilder defaultLoadBalancingPolicy(String policy) {
    loadBalancingPolicy = Objects.requireNonNull(policy, "policy");
    return this;
  }

  /**
   * The service config the channel uses when its name resolver gives none (or look-up is
   * {@linkplain #disableServiceConfigLookUp() disabled}), in grpc's JSON format as a map, as in
   * grpc-java: numbers may be any {@link Number}, durations are strings such as {@code "1.5s"}.
   * Each call gets its method's config ({@code timeout}, {@code waitForReady}, {@code
   * maxRequestMessageBytes}, {@code maxResponseMessageBytes}) as grpc-java applies it, and its
   * {@code retryPolicy} or {@code hedgingPolicy} is handed to the resilience module; the balancing
   * configs go to the channel's load balancing. See docs/service-config.md. Checked at once.
   *
   * <pre>{@code
   * builder.defaultServiceConfig(Map.of("methodConfig", List.of(Map.of(
   *     "name", List.of(Map.of("service", "helloworld.Greeter")),
   *     "timeout", "2s",
   *     "waitForReady", true))));
   * }</pre>
   *
   * @param serviceConfig the config; null for none (the default)
   * @return this builder
   * @throws IllegalArgumentException if the config is not valid, naming the field and the value
   *     (such as {@code methodConfig[1].timeout: '1x' is not a duration})
   */
  @Override
  public TernChannelBuilder defaultServiceConfig(Map<String, ?> serviceConfig) {
    defaultServiceConfig = serviceConfig == null ? null : ServiceConfigs.parse(serviceConfig).raw();
    return this;
  }

  /**
   * Logs every call with {@code binaryLog}, as in grpc-java: the log wraps the channel inside every
   * interceptor (census included), so it sees each call as it leaves for the transport. Closing
   * the log stays the application's job, once the channel has terminated.
   *
   * @param binaryLog the binary log, or null for none (the default)
   * @return this builder
   */
  @Override
  public TernChannelBuilder setBinaryLog(BinaryLog binaryLog) {
    this.binaryLog = binaryLog;
    return this;
  }

  /**
   * Not supported: channelz tracing is not available; see {@link #connectionListener} and {@code
   * TernChannels.connectionInfo(channel)}.
   *
   * @param maxTraceEvents ignored
   * @return never returns
   * @throws UnsupportedOperationException always, naming the alternative
   */
  @Override
  public TernChannelBuilder maxTraceEvents(int maxTraceEvents) {
    throw unsupported("maxTraceEvents(int)", "channelz tracing is not available; see connectionListener(...)"
        + " and TernChannels.connectionInfo(channel)");
  }

  /**
   * Decides, per target, whether the connection goes through an HTTP CONNECT proxy, as in
   * grpc-java; by default the JVM's {@link java.net.ProxySelector} decides ({@code https.proxyHost}
   * and friends), so a channel on a machine with no proxy configured connects directly. A proxied
   * target is not resolved by the client (the proxy resolves it) and is carried by {@code tcp}
   * only: QUIC and Tern's UDP protocol cannot cross an HTTP CONNECT proxy. Applies to {@code
   * host:port} targets; a channel built for an address connects to that address.
   *
   * @param proxyDetector the detector; not null (return null from it for a direct connection)
   * @return this builder
   */
  @Override
  public TernChannelBuilder proxyDetector(ProxyDetector proxyDetector) {
    this.proxyDetector = Objects.requireNonNull(proxyDetector, "proxyDetector");
    return this;
  }

  /**
   * Adds a filter told of each connection the channel uses, as in grpc-java: {@code
   * transportReady} once when the connection is ready and the channel picks it (the winner of the
   * transport race), with its attributes ({@code Grpc.TRANSPORT_ATTR_REMOTE_ADDR}, {@code
   * TRANSPORT_ATTR_LOCAL_ADDR}, {@code TRANSPORT_ATTR_SSL_SESSION} with TLS, and {@link
   * dev.tern.rpc.spi.ConnectionAttributes}'s transport name and security level), and {@code
   * transportTerminated} once when it has terminated, with what the last filter returned. Filters
   * run in the order added; one that throws or returns null is logged and skipped.
   *
   * @param filter the filter; not null
   * @return this builder
   * @throws NullPointerException if {@code filter} is null
   */
  @Override
  public TernChannelBuilder addTransportFilter(ClientTransportFilter filter) {
    transportFilters.add(java.util.Objects.requireNonNull(filter, "filter"));
    return this;
  }

  /**
   * Not supported: Tern builds the name resolver's {@code NameResolver.Args} itself, with no place
   * for custom arguments yet; give your {@code NameResolver.Factory} the value itself and install it
   * with {@link #nameResolverFactory}.
   *
   * @param <X> ignored
   * @param key ignored
   * @param value ignored
   * @return never returns
   * @throws UnsupportedOperationException always, naming the alternative
   */
  @Override
  public <X> TernChannelBuilder setNameResolverArg(NameResolver.Args.Key<X> key, X value) {
    throw unsupported("setNameResolverArg(NameResolver.Args.Key, Object)",
        "Tern passes no custom arguments to name resolvers; give your NameResolver.Factory the value itself"
            + " and install it with nameResolverFactory(...)");
  }

  /**
   * Not supported: Tern's load balancers and resolvers make no child channels for a configurator
   * to configure; configure this channel itself (interceptors, executors, limits).
   *
   * @param channelConfigurator ignored
   * @return never returns
   * @throws UnsupportedOperationException always, naming the alternative
   */
  @Override
  public TernChannelBuilder childChannelConfigurator(ChannelConfigurator channelConfigurator) {
    throw unsupported("childChannelConfigurator(ChannelConfigurator)", "Tern makes no child channels; configure"
        + " this channel itself with intercept(...), executor(...) and its limits");
  }

  /**
   * Adds the interceptor {@code factory} makes for this channel's target, as in grpc-java: at
   * {@link #build()} the factory is asked with the target (the {@link #forTarget} string, or the
   * authority of a channel built for an address), and its interceptor takes the place in the
   * interceptor order where this call put it.
   *
   * @param factory the factory; not null, and it must not return null
   * @return this builder
   * @throws NullPointerException if {@code factory} is null
   */
  @Override
  protected TernChannelBuilder interceptWithTarget(InterceptorFactory factory) {
    interceptors.add(new InterceptorFactoryPlace(Objects.requireNonNull(factory, "factory")));
    return this;
  }

  /** Where an {@link InterceptorFactory}'s interceptor goes in the list, until {@link #build()}. */
  private static final class InterceptorFactoryPlace implements ClientInterceptor {
    final InterceptorFactory factory;

    InterceptorFactoryPlace(InterceptorFactory factory) {
      this.factory = factory;
    }

    @Override
    public <ReqT, RespT> io.grpc.ClientCall<ReqT, RespT> interceptCall(io.grpc.MethodDescriptor<ReqT, RespT> method,
        io.grpc.CallOptions callOptions, io.grpc.Channel next) {
      throw new IllegalStateException("replaced by the factory's interceptor at build()");
    }
  }

  /** {@code binaryLog} as the innermost interceptor: it wraps the channel the calls leave on. */
  private static ClientInterceptor binaryLogInterceptor(BinaryLog binaryLog) {
    return new ClientInterceptor() {
      /** {@code next} and what the log made of it: the channel below is always the same one. */
      private volatile io.grpc.Channel[] wrapped;

      @Override
      public <ReqT, RespT> io.grpc.ClientCall<ReqT, RespT> interceptCall(
          io.grpc.MethodDescriptor<ReqT, RespT> method, io.grpc.CallOptions callOptions, io.grpc.Channel next) {
        io.grpc.Channel[] w = wrapped;
        if (w == null || w[0] != next) {
          w = new io.grpc.Channel[] {next, binaryLog.wrapChannel(next)};
          wrapped = w;
        }
        return w[1].newCall(method, callOptions);
      }
    };
  }

  /**
   * Adds a sink for the metrics the channel's load-balancing policy and name resolver record
   * through grpc's {@code MetricRecorder}, as in grpc-java (its OpenTelemetry module adds one; the
   * per-call metrics come from the interceptor it adds with {@link #interceptWithTarget}).
   *
   * @param metricSink the sink; not null
   * @return this builder
   */
  @Override
  protected TernChannelBuilder addMetricSink(MetricSink metricSink) {
    metricSinks.add(Objects.requireNonNull(metricSink, "metricSink"));
    return this;
  }

  private static UnsupportedOperationException unsupported(String signature, String instead) {
    return Unsupported.method("TernChannelBuilder", signature, instead);
  }

  /**
   * The channel; it connects on its first call.
   *
   * @return a new channel with this builder's settings
   * @throws IllegalArgumentException if {@link #transports} names a transport that is not on the
   *     class path, or, with {@link #usePlaintext()}, one that always encrypts (QUIC)
   * @throws NullPointerException if a factory given to {@link #interceptWithTarget} returns no
   *     interceptor
   */
  @Override
  public ManagedChannel build() {
    TransportSelector selector = TransportSelector.fromServiceLoader(transports, providers);
    TransportNames.checkAll(transports, selector.names(), "transports(...)");
    if (tls == null) {
      for (String name : transports) {
        TransportProvider p = selector.provider(name);
        if (p.requiresTls()) {
          throw new IllegalArgumentException("transport '" + name + "' needs TLS (QUIC always encrypts, RFC 9001 §4)"
              + " but the channel was built with usePlaintext(): remove usePlaintext() and, for a server with a"
              + " private or self-signed certificate, call .tls(TernTls.newBuilder().trustManager(caFile).build());"
              + " or leave '" + name + "' out of transports(...)");
        }
      }
      selector = selector.plaintext();
    }
    TransportOptions o = options
        .with(TransportOptions.PROTOCOL_VERSIONS, protocolVersions.clone())
        .with(TransportOptions.TLS, tls)
        .with(TransportOptions.MAX_INBOUND_MESSAGE_SIZE, maxInboundMessageSize)
        .with(TransportOptions.HANDSHAKE_TIMEOUT_MILLIS, TimeUnit.NANOSECONDS.toMillis(handshakeTimeoutNanos))
        .with(TransportOptions.USER_AGENT, userAgent)
        .with(TransportOptions.COMPRESSOR_REGISTRY, compressors)
        .with(TransportOptions.DECOMPRESSOR_REGISTRY, decompressors);
    selector = selector.configuredFor(o);
    // As grpc-java: the binary log innermost, then census (ClientInterceptors runs the last in the
    // list first).
    List<ClientInterceptor> allInterceptors = new ArrayList<>();
    if (binaryLog != null) {
      allInterceptors.add(binaryLogInterceptor(binaryLog));
    }
    allInterceptors.addAll(Census.clientInterceptors(censusStats, censusTracing));
    String computedTarget = target != null ? target : authority;
    for (ClientInterceptor i : interceptors) {
      if (i instanceof InterceptorFactoryPlace) {
        InterceptorFactory factory = ((InterceptorFactoryPlace) i).factory;
        i = factory.newInterceptor(computedTarget);
        if (i == null) {
          throw new NullPointerException("interceptWithTarget(...): " + factory + " returned no interceptor for '"
              + computedTarget + "'");
        }
      }
      allInterceptors.add(i);
    }
    Supplier<List<SocketAddress>> addresses = address;
    if (host != null) {
      String h = host;
      int p = port;
      ProxyDetector d = proxyDetector != null ? proxyDetector : SystemProxyDetector.INSTANCE;
      addresses = () -> resolveAll(h, p, d);
    }
    String auth = authority;
    io.grpc.SynchronizationContext sync = ChannelConfig.newSync(target != null ? target : String.valueOf(authority));
    ResolverAddresses resolver = null;
    io.grpc.MetricRecorder metricRecorder = SinkMetricRecorder.of(metricSinks);
    ServiceConfigs.Limits limits = new ServiceConfigs.Limits(retryEnabled, maxRetryAttempts, maxHedgedAttempts);
    ChannelBalancer.policyConfig(loadBalancingPolicy); // a policy that is not registered fails here
    ServiceConfigs parsedDefault = defaultServiceConfig == null ? null : ServiceConfigs.parse(defaultServiceConfig, limits);
    if (host != null && resolverTarget == null && nameResolverFactory == null
        && (!ChannelBalancer.DEFAULT_POLICY.equals(loadBalancingPolicy)
            || parsedDefault != null && !parsedDefault.loadBalancingConfigs().isEmpty())) {
      // A policy over several backends sees each address of the host as one, as with grpc-java's DNS resolver.
      ProxyDetector d = proxyDetector != null ? proxyDetector : SystemProxyDetector.INSTANCE;
      String hostPort = (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
      resolver = new ResolverAddresses(HostNameResolver.factory(host, port, hostPort, d),
          java.net.URI.create("dns:///" + hostPort), tls == null ? 80 : 443, d, ChannelConfig.resolverTimer(),
          offloadExecutor != null ? offloadExecutor : ChannelConfig.resolverPool(), sync, ServiceConfigs.resolverParser(limits), metricRecorder);
    } else if (resolverTarget != null || nameResolverFactory != null) {
      NameResolver.Factory factory = nameResolverFactory != null ? nameResolverFactory
          : NameResolverRegistry.getDefaultRegistry().asFactory();
      java.net.URI uri = resolverTarget != null ? resolverTarget : withScheme(target, factory.getDefaultScheme());
      resolver = new ResolverAddresses(factory, uri, tls == null ? 80 : 443,
          proxyDetector != null ? proxyDetector : SystemProxyDetector.INSTANCE, ChannelConfig.resolverTimer(),
          offloadExecutor != null ? offloadExecutor : ChannelConfig.resolverPool(), sync, ServiceConfigs.resolverParser(limits), metricRecorder);
      addresses = () -> {
        throw new IllegalStateException("a resolver channel's addresses come from its load balancer");
      };
      if (auth == null || resolverTarget == null && !authorityOverridden) {
        auth = resolver.serviceAuthority();
      }
    }
    ChannelConfig cfg = new ChannelConfig(addresses, auth,
        selector, o, executor, allInterceptors, compressors,
        decompressors, maxInboundMessageSize, protocolVersions.clone(),
        tls == null ? SecurityLevel.NONE : SecurityLevel.PRIVACY_AND_INTEGRITY, handshakeTimeoutNanos,
        initialBackoffNanos, maxBackoffNanos, connectionListener, raceHeadStartNanos, memory, offloadExecutor,
        idleTimeoutNanos, sync, parsedDefault, serviceConfigLookUp, limits);
    if (!transportFilters.isEmpty()) {
      cfg.transportFilters = new ClientTransportFilters(transportFilters);
    }
    if (metrics != null) {
      cfg.metrics = metrics;
    }
    cfg.metricRecorder = metricRecorder;
    cfg.metricsScope = metricsScope != null ? metricsScope : target != null ? target : String.valueOf(auth);
    CallPolicyProvider policies = callPolicyProviderSet ? callPolicyProvider : DefaultCallPolicies.PROVIDER;
    return new TernManagedChannel(cfg, resolver, loadBalancingPolicy, policies);
  }

  /**
   * Counts this channel's calls, connections, handshakes and its transports' events in {@code
   * metrics}, under the channel's target (or authority) as its name; see {@link
   * #metrics(dev.tern.rpc.metrics.TernMetrics, String)}.
   *
   * @param metrics where to count; not null
   * @return this builder
   */
  public TernChannelBuilder metrics(dev.tern.rpc.metrics.TernMetrics metrics) {
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    return this;
  }

  /**
   * Counts this channel's calls (per transport: those that got a stream on one of its connections;
   * under transport {@code none}: those that ended before any did), connections, connection
   * attempts (handshakes in progress, completed, failed) and its transports' own events (bytes,
   * retransmissions, refusals, 0-RTT outcomes) in {@code metrics} under {@code name}. Without it
   * the channel counts into a registry nothing reads. The names and what each counts:
   * docs/metrics.md.
   *
   * @param metrics where to count; not null
   * @param name the channel's name among the registry's servers and channels; not null
   * @return this builder
   */
  public TernChannelBuilder metrics(dev.tern.rpc.metrics.TernMetrics metrics, String name) {
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.metricsScope = Objects.requireNonNull(name, "name");
    return this;
  }

  /** The first {@link CallPolicyProvider} on the class path, looked up once; null if none. */
  private static final class DefaultCallPolicies {
    static final CallPolicyProvider PROVIDER = first();

    /** The first provider the service loader finds (its iterator: {@code findFirst} is not in Android's API 26). */
    private static CallPolicyProvider first() {
      java.util.Iterator<CallPolicyProvider> it = java.util.ServiceLoader.load(CallPolicyProvider.class,
          TernChannelBuilder.class.getClassLoader()).iterator();
      return it.hasNext() ? it.next() : null;
    }
  }
}
