package dev.tern.rpc;

import io.grpc.Attributes;
import io.grpc.ServerTransportFilter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A server's transport filters ({@code ServerBuilder.addTransportFilter}), chained in the order
 * they were added as grpc-java chains them: what one filter's {@code transportReady} returns is
 * the next one's input, and the last one's result is what the connection's calls see. A filter
 * that throws, or returns null, is logged and skipped (the chain goes on with the attributes it
 * was given), so a faulty observer never takes a connection down.
 */
final class ServerTransportFilters {
  private static final Logger log = Logger.getLogger(TernServer.class.getName());

  private final List<ServerTransportFilter> filters;

  ServerTransportFilters(List<ServerTransportFilter> filters) {
    this.filters = Collections.unmodifiableList(new ArrayList<>(filters));
  }

  /** Runs every filter's {@code transportReady} in order; returns the last result. */
  Attributes ready(Attributes attributes) {
    Attributes current = attributes;
    for (ServerTransportFilter f : filters) {
      Attributes next;
      try {
        next = f.transportReady(current);
      } catch (RuntimeException e) {
        log.log(Level.WARNING, "transport filter " + f + " threw in transportReady; the connection goes on"
            + " with the attributes it had", e);
        continue;
      }
      if (next == null) {
        log.log(Level.WARNING, "transport filter {0} returned null from transportReady; the connection goes on"
            + " with the attributes it had", f);
        continue;
      }
      current = next;
    }
    return current;
  }

  /** Runs every filter's {@code transportTerminated} in order with the connection's attributes. */
  void terminated(Attributes attributes) {
    for (ServerTransportFilter f : filters) {
      try {
        f.transportTerminated(attributes);
      } catch (RuntimeException e) {
        log.log(Level.WARNING, "transport filter " + f + " threw in transportTerminated", e);
      }
    }
  }
}
