package dev.tern.rpc.guice;

import dev.tern.rpc.TernServerBuilder;

/**
 * Sets what {@link TernOptions} does not carry on the server {@link TernModule} builds: transport
 * options (a {@code udp} server's static key), keep-alive policy, limits, metrics. Bound with
 * {@link TernModule#serverConfigurers}; each runs, in no set order, after the module has applied
 * the options, the transports, TLS, the services and the interceptors, and before {@code build()}.
 */
@FunctionalInterface
public interface ServerConfigurer {
  /**
   * Configures the server's builder.
   *
   * @param builder the builder the module is about to build
   */
  void configure(TernServerBuilder builder);
}
