package dev.tern.rpc.inprocess;

import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.ServerTransport;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.rpc.spi.TransportProvider;
import java.net.SocketAddress;

/**
 * The in-process transport ({@code "inprocess"}): client and server in one JVM, addressed by
 * {@link InProcessAddress}, for fast tests of the call layer and of applications.
 *
 * <p>It behaves like a network transport where it matters to callers: messages are handed over
 * (never shared), flow control is real (a per-stream window of {@link
 * TransportOptions#FLOW_CONTROL_WINDOW} bytes; a sender's {@code isReady()} turns false when the
 * receiver has not asked for what is buffered), gzip-encoded calls really pass through gzip, the
 * receiver's {@link TransportOptions#MAX_INBOUND_MESSAGE_SIZE} and {@link
 * TransportOptions#MAX_INBOUND_METADATA_SIZE} (header blocks counted as HTTP/2 counts them) are
 * enforced with {@code RESOURCE_EXHAUSTED}, requests carry a {@code user-agent} ({@link
 * TransportOptions#USER_AGENT} ahead of {@code tern-inprocess}), and the protocol
 * version is agreed when connecting ({@link VersionHandshake#IN_TRANSPORT}).
 */
public class InProcessTransportProvider implements TransportProvider {
  /** This provider's name. */
  public static final String NAME = "inprocess";

  /** Creates the provider (cheap: no threads until a stream exists). */
  public InProcessTransportProvider() {}

  @Override
  public String name() {
    return NAME;
  }

  /** Always true: the in-process transport needs nothing from the platform. */
  @Override
  public boolean isAvailable() {
    return true;
  }

  @Override
  public String unavailableReason() {
    return null;
  }

  @Override
  public VersionHandshake versionHandshake() {
    return VersionHandshake.IN_TRANSPORT;
  }

  /**
   * A client to the server named by {@code address}.
   *
   * @throws IllegalArgumentException if {@code address} is not an {@link InProcessAddress}
   */
  @Override
  public ClientTransport newClientTransport(SocketAddress address, String authority,
      TransportOptions options) {
    return new InProcessClientTransport(name(), checkAddress(address), authority, options,
        versionHandshake() == VersionHandshake.IN_TRANSPORT);
  }

  /**
   * A server listening on {@code bindAddress}.
   *
   * @throws IllegalArgumentException if {@code bindAddress} is not an {@link InProcessAddress}
   */
  @Override
  public ServerTransport newServerTransport(SocketAddress bindAddress, TransportOptions options) {
    return new InProcessServerTransport(checkAddress(bindAddress), options);
  }

  private static InProcessAddress checkAddress(SocketAddress address) {
    if (!(address instanceof InProcessAddress)) {
      throw new IllegalArgumentException("in-process transport needs an InProcessAddress, got "
          + (address == null ? "null" : address.getClass().getName() + " " + address));
    }
    return (InProcessAddress) address;
  }
}
