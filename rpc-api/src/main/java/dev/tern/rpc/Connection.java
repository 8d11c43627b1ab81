package dev.tern.rpc;

import dev.tern.rpc.metrics.TransportMetrics;
import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.TransportProvider;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/** A ready client transport, the provider that made it, and the protocol version agreed on it. */
final class Connection {
  private static final Logger LOG = Logger.getLogger(Connection.class.getName());
  final ClientTransport transport;
  final TransportProvider provider;
  /** The channel's counters for this connection's transport. */
  final TransportMetrics metrics;
  private volatile int headerVersion;
  /** Why the channel's connect chose this connection's transport; set once it won its race. */
  volatile String selection;
  /** The channel (its authority, memory and transports), to learn advertisements; null in tests. */
  private final ChannelConfig cfg;
  /** The last {@code alt-svc} value seen on this connection: the same value is not read twice. */
  private volatile String lastAdvertisement;

  Connection(ClientTransport transport, TransportProvider provider, TransportMetrics metrics) {
    this(transport, provider, metrics, null);
  }

  Connection(ClientTransport transport, TransportProvider provider, TransportMetrics metrics,
      ChannelConfig cfg) {
    this.transport = transport;
    this.provider = provider;
    this.metrics = metrics;
    this.cfg = cfg;
  }

  /**
   * The server's {@code alt-svc} from a call's response headers: what it offers besides this
   * transport, remembered for the channel's authority, but only from a connection on which the
   * server proved who it is (a TLS session, checked by the channel's trust settings): over
   * plaintext anyone on the path could inject a server key. A server sends the same value on every
   * call, so only a change is read; a value that does not parse is ignored (logged at FINE).
   */
  void advertised(String value) {
    if (value.equals(lastAdvertisement) || cfg == null) {
      return;
    }
    lastAdvertisement = value;
    if (transport.connectionInfo().sslSession() == null) {
      LOG.log(Level.FINE, "{0} over {1}: alt-svc ignored, the connection is not authenticated (TLS)",
          new Object[] {cfg.authority, provider.name()});
      return;
    }
    AltSvc.Field field;
    try {
      field = AltSvc.parse(value);
    } catch (IllegalArgumentException e) {
      LOG.log(Level.FINE, "{0} over {1}: alt-svc ignored: {2}",
          new Object[] {cfg.authority, provider.name(), e.getMessage()});
      return;
    }
    Map<String, AltSvc.Alternative> byTransport = new LinkedHashMap<>();
    for (AltSvc.Alternative alt : field.alternatives()) {
      String t = alt.sameHost() ? cfg.selector.transportForProtocolId(alt.protocolId()) : null;
      if (t != null && !t.equals(provider.name())) {
        byTransport.putIfAbsent(t, alt);
      }
    }
    // A Tern server lists only transports better than the one the call came on, so the field
    // never names this connection's own: what was learnt of it before (its port, on quic) stays.
    AltSvc.Alternative own = field.clear() ? null : cfg.memory.advertisement(cfg.authority, provider.name());
    if (own != null) {
      byTransport.putIfAbsent(provider.name(), own);
    }
    cfg.memory.advertised(cfg.authority, byTransport);
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
