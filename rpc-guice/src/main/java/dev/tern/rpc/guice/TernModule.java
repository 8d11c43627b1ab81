package dev.tern.rpc.guice;

import com.google.inject.AbstractModule;
import com.google.inject.Binder;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import com.google.inject.multibindings.Multibinder;
import com.google.inject.multibindings.OptionalBinder;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.TernTls;
import dev.tern.rpc.spi.TransportProvider;
import io.grpc.BindableService;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerInterceptor;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;

/**
 * Binds a Tern {@link Server} and a {@link ManagedChannel}, both singletons, built from the bound
 * {@link TernOptions}:
 *
 * <ul>
 *   <li>the transports: a {@link Multibinder} of {@link TransportProvider}, holding every provider
 *       on the class path ({@link ServiceLoader}); add more with {@link #transports(Binder)};
 *   <li>the services: a {@link Multibinder} of {@link BindableService}, empty until the
 *       application adds its own with {@link #services(Binder)};
 *   <li>the server's interceptors: a {@link Multibinder} of {@link ServerInterceptor} ({@link
 *       #serverInterceptors(Binder)});
 *   <li>TLS, when the options are not plaintext: a {@link TernTls} annotated {@link
 *       ServerTls} for the server and one annotated {@link ChannelTls} for the channel, bound by
 *       the application ({@code OptionalBinder}s: without one, the builder's own default holds);
 *   <li>anything else the builders offer: {@link ServerConfigurer}s ({@link
 *       #serverConfigurers(Binder)}) and {@link ChannelConfigurer}s ({@link
 *       #channelConfigurers(Binder)}), run last.
 * </ul>
 *
 * <p>The server is built, not started: call {@code start()} (and {@code shutdown()}) where the
 * application manages its life cycle. The channel connects on its first call.
 *
 * <pre>{@code
 * Injector injector = Guice.createInjector(new TernModule(TernOptions.fromProperties(props, "tern.")),
 *     binder -> TernModule.services(binder).addBinding().to(GreeterImpl.class));
 * Server server = injector.getInstance(Server.class).start();
 * }</pre>
 */
public final class TernModule extends AbstractModule {
  private final TernOptions options;

  /**
   * A module that builds with {@code options}.
   *
   * @param options the listen addresses, target, transports and plaintext flag
   * @throws NullPointerException if {@code options} is null
   */
  public TernModule(TernOptions options) {
    this.options = Objects.requireNonNull(options, "options");
  }

  /**
   * The set of services the server serves: add the application's to it.
   *
   * @param binder the binder of the application's module
   * @return the multibinder
   */
  public static Multibinder<BindableService> services(Binder binder) {
    return Multibinder.newSetBinder(binder, BindableService.class);
  }

  /**
   * The set of transports the server and the channel can use (every provider on the class path is
   * already in it).
   *
   * @param binder the binder of the application's module
   * @return the multibinder
   */
  public static Multibinder<TransportProvider> transports(Binder binder) {
    return Multibinder.newSetBinder(binder, TransportProvider.class);
  }

  /**
   * The server's interceptors.
   *
   * @param binder the binder of the application's module
   * @return the multibinder
   */
  public static Multibinder<ServerInterceptor> serverInterceptors(Binder binder) {
    return Multibinder.newSetBinder(binder, ServerInterceptor.class);
  }

  /**
   * What else to set on the server's builder (transport options such as a {@code udp} server's
   * key, keep-alive policy, limits), run after everything the module sets.
   *
   * @param binder the binder of the application's module
   * @return the multibinder
   */
  public static Multibinder<ServerConfigurer> serverConfigurers(Binder binder) {
    return Multibinder.newSetBinder(binder, ServerConfigurer.class);
  }

  /**
   * What else to set on the channel's builder (transport options, a transport memory, a service
   * config), run after everything the module sets.
   *
   * @param binder the binder of the application's module
   * @return the multibinder
   */
  public static Multibinder<ChannelConfigurer> channelConfigurers(Binder binder) {
    return Multibinder.newSetBinder(binder, ChannelConfigurer.class);
  }

  @Override
  protected void configure() {
    bind(TernOptions.class).toInstance(options);
    services(binder());
    serverInterceptors(binder());
    serverConfigurers(binder());
    channelConfigurers(binder());
    Multibinder<TransportProvider> transports = transports(binder());
    for (TransportProvider p : ServiceLoader.load(TransportProvider.class, TernModule.class.getClassLoader())) {
      transports.addBinding().toInstance(p);
    }
    OptionalBinder.newOptionalBinder(binder(), com.google.inject.Key.get(TernTls.class, ServerTls.class));
    OptionalBinder.newOptionalBinder(binder(), com.google.inject.Key.get(TernTls.class, ChannelTls.class));
  }

  @Provides
  @Singleton
  Server server(TernOptions o, Set<TransportProvider> transports, Set<BindableService> services,
      Set<ServerInterceptor> interceptors, @ServerTls Optional<TernTls> tls, Set<ServerConfigurer> configurers) {
    TernServerBuilder b = TernServerBuilder.create();
    for (TransportProvider p : transports) {
      b.addTransportProvider(p);
    }
    for (Map.Entry<String, InetSocketAddress> e : o.listen().entrySet()) {
      b.listen(e.getKey(), e.getValue());
    }
    if (!o.plaintext() && tls.isPresent()) {
      b.tls(tls.get());
    }
    for (BindableService s : services) {
      b.addService(s);
    }
    for (ServerInterceptor i : interceptors) {
      b.intercept(i);
    }
    for (ServerConfigurer c : configurers) {
      c.configure(b);
    }
    return b.build();
  }

  @Provides
  @Singleton
  ManagedChannel channel(TernOptions o, Set<TransportProvider> transports, @ChannelTls Optional<TernTls> tls,
      Set<ChannelConfigurer> configurers) {
    if (o.target() == null) {
      throw new IllegalStateException("TernOptions has no channel target: set target(host:port) or the"
          + " channel.target property to inject a ManagedChannel");
    }
    TernChannelBuilder b = TernChannelBuilder.forTarget(o.target());
    for (TransportProvider p : transports) {
      b.addTransportProvider(p);
    }
    if (!o.transports().isEmpty()) {
      b.transports(o.transports().toArray(new String[0]));
    }
    if (o.plaintext()) {
      b.usePlaintext();
    } else if (tls.isPresent()) {
      b.tls(tls.get());
    }
    for (ChannelConfigurer c : configurers) {
      c.configure(b);
    }
    return b.build();
  }
}
