package dev.tern.rpc;

import dev.tern.rpc.spi.TlsSettings;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.BindableService;
import io.grpc.CompressorRegistry;
import io.grpc.DecompressorRegistry;
import io.grpc.HandlerRegistry;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.ServerInterceptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServerStreamTracer;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.file.Files;
import java.util.ArrayList;
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
 *     .listen("udp", 8443)
 *     .listen("quic", 8444)
 *     .addService(new FeedService())
 *     .useTransportSecurity(certFile, keyFile)
 *     .build().start();
 * }</pre>
 */
public final class TernServerBuilder extends ServerBuilder<TernServerBuilder> {
  private final List<dev.tern.rpc.spi.TransportProvider> providers = new ArrayList<>();
  private final List<TernServer.Listen> listens = new ArrayList<>();
  private final Map<String, ServerServiceDefinition> services = new LinkedHashMap<>();
  private final List<ServerInterceptor> interceptors = new ArrayList<>();
  private final List<ServerStreamTracer.Factory> tracers = new ArrayList<>();
  private HandlerRegistry fallback;
  private Executor executor;
  private CompressorRegistry compressors = CompressorRegistry.getDefaultInstance();
  private DecompressorRegistry decompressors = DecompressorRegistry.getDefaultInstance();
  private int maxInboundMessageSize = TransportOptions.MAX_INBOUND_MESSAGE_SIZE.defaultValue();
  private int[] protocolVersions = ProtocolVersions.SUPPORTED.clone();
  private TransportOptions options = TransportOptions.defaults();
  private TlsSettings tls;

  private TernServerBuilder() {}

  /** A builder with no listening address yet; add them with {@link #listen}. */
  public static TernServerBuilder create() {
    return new TernServerBuilder();
  }

  /** A builder listening with TCP on {@code port} on every interface (0: any free port). */
  public static TernServerBuilder forPort(int port) {
    return new TernServerBuilder().listen("tcp", port);
  }

  /** Also listens with {@code transportName} on {@code address}. */
  public TernServerBuilder listen(String transportName, SocketAddress address) {
    listens.add(new TernServer.Listen(Objects.requireNonNull(transportName, "transportName"),
        Objects.requireNonNull(address, "address")));
    return this;
  }

  /**
   * Also listens with {@code transportName} on {@code port} on every interface.
   *
   * @throws IllegalArgumentException if {@code port} is outside 0..65535
   */
  public TernServerBuilder listen(String transportName, int port) {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be in 0..65535, was " + port);
    }
    return listen(transportName, new InetSocketAddress(port));
  }

  @Override
  public TernServerBuilder addService(ServerServiceDefinition service) {
    services.put(service.getServiceDescriptor().getName(), service);
    return this;
  }

  @Override
  public TernServerBuilder addService(BindableService service) {
    return addService(service.bindService());
  }

  @Override
  public TernServerBuilder fallbackHandlerRegistry(HandlerRegistry registry) {
    fallback = registry;
    return this;
  }

  /**
   * Makes {@code provider} available by its name without {@link java.util.ServiceLoader} (a
   * provider bound by hand or by Guice); it wins over a discovered provider of the same name.
   */
  public TernServerBuilder addTransportProvider(dev.tern.rpc.spi.TransportProvider provider) {
    providers.add(Objects.requireNonNull(provider, "provider"));
    return this;
  }

  /** Runs {@code interceptor} on every call; interceptors added last run first. */
  @Override
  public TernServerBuilder intercept(ServerInterceptor interceptor) {
    interceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
    return this;
  }

  /** Creates a tracer for every call; its events (start, messages, close) are reported. */
  @Override
  public TernServerBuilder addStreamTracerFactory(ServerStreamTracer.Factory factory) {
    tracers.add(Objects.requireNonNull(factory, "factory"));
    return this;
  }

  @Override
  public TernServerBuilder executor(Executor e) {
    executor = Objects.requireNonNull(e, "executor");
    return this;
  }

  @Override
  public TernServerBuilder directExecutor() {
    executor = Runnable::run;
    return this;
  }

  /** Largest request message accepted (4 MiB by default); larger ones fail the call with RESOURCE_EXHAUSTED. */
  @Override
  public TernServerBuilder maxInboundMessageSize(int bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("maxInboundMessageSize must be >= 0, was " + bytes);
    }
    maxInboundMessageSize = bytes;
    return this;
  }

  /** Longest a connection's handshake may take before the server drops it. */
  @Override
  public TernServerBuilder handshakeTimeout(long timeout, TimeUnit unit) {
    if (timeout <= 0) {
      throw new IllegalArgumentException("handshake timeout must be > 0, was " + timeout);
    }
    options = options.with(TransportOptions.HANDSHAKE_TIMEOUT_MILLIS, unit.toMillis(timeout));
    return this;
  }

  @Override
  public TernServerBuilder compressorRegistry(CompressorRegistry registry) {
    compressors = registry == null ? CompressorRegistry.getDefaultInstance() : registry;
    return this;
  }

  @Override
  public TernServerBuilder decompressorRegistry(DecompressorRegistry registry) {
    decompressors = registry == null ? DecompressorRegistry.getDefaultInstance() : registry;
    return this;
  }

  /** TLS with these settings on every transport that supports it. */
  public TernServerBuilder tls(TlsSettings settings) {
    tls = Objects.requireNonNull(settings, "settings");
    return this;
  }

  /**
   * TLS with a PEM certificate chain and a PEM PKCS#8 private key.
   *
   * @throws UncheckedIOException naming the file that cannot be read
   */
  @Override
  public TernServerBuilder useTransportSecurity(File certChain, File privateKey) {
    try {
      byte[] chain = Files.readAllBytes(certChain.toPath());
      byte[] key = Files.readAllBytes(privateKey.toPath());
      return tls(TlsSettings.forServer(chain, key));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read TLS certificate " + certChain + " or key " + privateKey, e);
    }
  }

  /** Sets a transport option for every transport this server listens with. */
  public <T> TernServerBuilder transportOption(TransportOptions.Key<T> key, T value) {
    options = options.with(Objects.requireNonNull(key, "key"), value);
    return this;
  }

  /**
   * Tern protocol versions this server speaks (default {@link ProtocolVersions#SUPPORTED}).
   *
   * @throws IllegalArgumentException if empty or not all positive
   */
  public TernServerBuilder protocolVersions(int... versions) {
    protocolVersions = ProtocolVersions.validate(versions);
    return this;
  }

  /** The server, not yet started. */
  @Override
  public Server build() {
    if (listens.isEmpty()) {
      throw new IllegalStateException("no listening address: call listen(transport, address)");
    }
    ExecutorService owned = executor == null ? DaemonThreads.cachedPool("tern-server-executor") : null;
    ServerConfig cfg = new ServerConfig(new ServiceRegistry(services), fallback, interceptors, tracers,
        owned != null ? owned : executor, compressors, decompressors, maxInboundMessageSize,
        protocolVersions.clone());
    TransportOptions o = options.with(TransportOptions.PROTOCOL_VERSIONS, protocolVersions.clone())
        .with(TransportOptions.TLS, tls)
        .with(TransportOptions.MAX_INBOUND_MESSAGE_SIZE, maxInboundMessageSize);
    return new TernServer(cfg, listens, o, TransportSelector.fromServiceLoader(List.of(), providers), owned);
  }
}
