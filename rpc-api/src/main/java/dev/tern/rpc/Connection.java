package dev.tern.rpc;

import dev.tern.rpc.metrics.TransportMetrics;
import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.TransportProvider;

/** A ready client transport, the provider that made it, and the protocol version agreed on it. */
final class Connection {
  final ClientTransport transport;
  final TransportProvider provider;
  /** The channel's counters for this connection's transport. */
  final TransportMetrics metrics;
  private volatile int headerVersion;
  /** Why the channel's connect chose this connection's transport; set once it won its race. */
  volatile String selection;

  Connection(ClientTransport transport, TransportProvider provider, TransportMetrics metrics) {
    this.transport = transport;
    this.provider = provider;
    this.metrics = metrics;
  }

  boolean versionInHeaders() {
    return provider.versionHandshake() == TransportProvider.VersionHandshake.PER_CALL_HEADER;
  }

  /** A version a server stated in {@code tern-protocol-selected}. */
  void recordSelectedVersion(int version) {
    headerVersion = version;
  }

  /** The transport's snapshot, with the version learned from response headers where it has none. */
  ConnectionInfo info() {
    ConnectionInfo info = transport.connectionInfo();
    int v = headerVersion;
    if (versionInHeaders() && v > 0 && info.protocolVersion() != v) {
      return info.toBuilder().protocolVersion(v).build();
    }
    return info;
  }
}
