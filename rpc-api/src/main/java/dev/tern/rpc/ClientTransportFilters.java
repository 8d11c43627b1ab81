package dev.tern.rpc;

import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.ConnectionAttributes;
import io.grpc.Attributes;
import io.grpc.ClientTransportFilter;
import io.grpc.SecurityLevel;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A channel's client transport filters ({@code ManagedChannelBuilder.addTransportFilter}), chained
 * in the order added as grpc-java chains them, for the connections the channel uses: {@link
 * #ready} when a transport is ready and chosen, {@link #terminated} when it has terminated. Each
 * transport is shown to the filters at most once each way, and {@code transportTerminated} only
 * after its {@code transportReady}, so calling {@link #terminated} for a transport that never was
 * {@link #ready}, or twice, does nothing. A filter that throws or returns null is logged and
 * skipped.
 */
final class ClientTransportFilters {
  private static final Logger log = Logger.getLogger(TernManagedChannel.class.getName());
  /** What a channel without filters holds: every call is a no-op. */
  static final ClientTransportFilters NONE = new ClientTransportFilters(Collections.emptyList());

  private final List<ClientTransportFilter> filters;
  /** The filtered attributes of each transport shown ready and not yet terminated. */
  private final Map<ClientTransport, Attributes> live = new ConcurrentHashMap<>();

  ClientTransportFilters(List<ClientTransportFilter> filters) {
    this.filters = Collections.unmodifiableList(new ArrayList<>(filters));
  }

  /**
   * {@code transport} is ready and the channel uses it: runs every filter's {@code
   * transportReady} with the connection's attributes ({@link ConnectionAttributes#of}).
   *
   * @param transport the ready transport
   * @param info its snapshot now
   * @param level the connection's security level
   * @return the attributes the last filter returned (the transport's own without filters)
   */
  Attributes ready(ClientTransport transport, ConnectionInfo info, SecurityLevel level) {
    SecurityLevel effective = info.sslSession() != null ? SecurityLevel.PRIVACY_AND_INTEGRITY : level;
    Attributes current = ConnectionAttributes.of(info, effective);
    if (filters.isEmpty()) {
      return current;
    }
    if (live.putIfAbsent(transport, current) != null) {
      return live.get(transport);
    }
    for (ClientTransportFilter f : filters) {
      Attributes next;
      try {
        next = f.transportReady(current);
      } catch (RuntimeException e) {
        log.log(Level.WARNING, "client transport filter " + f + " threw in transportReady; the connection"
            + " goes on with the attributes it had", e);
        continue;
      }
      if (next == null) {
        log.log(Level.WARNING, "client transport filter {0} returned null from transportReady; the"
            + " connection goes on with the attributes it had", f);
        continue;
      }
      current = next;
    }
    live.replace(transport, current);
    return current;
  }

  /**
   * {@code transport} has terminated: runs every filter's {@code transportTerminated} with the
   * attributes {@link #ready} ended with, once; nothing if it was never shown ready.
   *
   * @param transport the terminated transport
   */
  void terminated(ClientTransport transport) {
    if (filters.isEmpty()) {
      return;
    }
    Attributes last = live.remove(transport);
    if (last == null) {
      return;
    }
    for (ClientTransportFilter f : filters) {
      try {
        f.transportTerminated(last);
      } catch (RuntimeException e) {
        log.log(Level.WARNING, "client transport filter " + f + " threw in transportTerminated", e);
      }
    }
  }
}
