package dev.tern.rpc.guice;

import dev.tern.rpc.TernChannelBuilder;

/**
 * Sets what {@link TernOptions} does not carry on the channel {@link TernModule} builds: transport
 * options (a pinned {@code udp} key, a session store), a transport memory, keep-alive, a service
 * config. Bound with {@link TernModule#channelConfigurers}; each runs, in no set order, after the
 * module has applied the options, the transports and TLS, and before {@code build()}.
 */
@FunctionalInterface
public interface ChannelConfigurer {
  /**
   * Configures the channel's builder.
   *
   * @param builder the builder the module is about to build
   */
  void configure(TernChannelBuilder builder);
}
