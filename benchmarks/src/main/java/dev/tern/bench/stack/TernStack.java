package dev.tern.bench.stack;

import dev.tern.rpc.spi.TransportProvider;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import java.net.InetSocketAddress;

/**
 * Tern's public API over one transport, chosen by its provider's name. Until the call layer
 * ({@code TernChannelBuilder}, {@code TernServerBuilder}) is part of the build this stack reports
 * itself unavailable, and runs nothing.
 */
final class TernStack implements RpcStack {
  private final TransportProvider provider;

  TernStack(TransportProvider provider) {
    this.provider = provider;
  }

  @Override
  public String name() {
    return provider.name();
  }

  @Override
  public boolean isAvailable() {
    return false;
  }

  @Override
  public String unavailableReason() {
    return provider.isAvailable() ? "the Tern call layer is not in this build" : provider.unavailableReason();
  }

  @Override
  public Server startServer(InetSocketAddress bind, ServerServiceDefinition service) {
    throw new IllegalStateException(name() + " unavailable: " + unavailableReason());
  }

  @Override
  public ManagedChannel newChannel(String host, int port) {
    throw new IllegalStateException(name() + " unavailable: " + unavailableReason());
  }

  @Override
  public CallOptions withPriority(CallOptions base, int urgency, boolean incremental) {
    return base;
  }
}
