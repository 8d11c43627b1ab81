package dev.tern.rpc;

import dev.tern.rpc.inprocess.InProcessTransportProvider;
import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.ServerTransport;
import dev.tern.rpc.spi.TransportOptions;
import java.net.SocketAddress;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The in-process transport under another name, recording the options each client and server
 * transport is made with: what a builder hands every transport. Optionally it says it needs TLS,
 * as QUIC does.
 */
final class OptionsCapturingProvider extends InProcessTransportProvider {
  final BlockingQueue<TransportOptions> clientOptions = new LinkedBlockingQueue<>();
  final BlockingQueue<TransportOptions> serverOptions = new LinkedBlockingQueue<>();
  private final String name;
  private final boolean requiresTls;

  OptionsCapturingProvider(String name, boolean requiresTls) {
    this.name = name;
    this.requiresTls = requiresTls;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public boolean requiresTls() {
    return requiresTls;
  }

  @Override
  public ClientTransport newClientTransport(SocketAddress address, String authority, TransportOptions options) {
    clientOptions.add(options);
    return super.newClientTransport(address, authority, options);
  }

  @Override
  public ServerTransport newServerTransport(SocketAddress bindAddress, TransportOptions options) {
    serverOptions.add(options);
    return super.newServerTransport(bindAddress, options);
  }
}
