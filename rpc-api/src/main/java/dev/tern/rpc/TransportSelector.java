package dev.tern.rpc;

import dev.tern.rpc.inprocess.InProcessTransportProvider;
import dev.tern.rpc.spi.TransportProvider;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * Chooses the transport a channel connects with.
 *
 * <p>Today: the first transport of the preference order that is on the class path and {@linkplain
 * TransportProvider#isAvailable() available}. This class is the seam where negotiation will go
 * (racing a UDP transport against TCP, remembering what worked per authority, marking transports
 * broken), so the channel asks it on every (re)connect.
 */
public final class TransportSelector {
  /** The order used when a channel sets none: Tern's UDP protocol, then QUIC, then TCP. */
  public static final List<String> DEFAULT_PREFERENCE = List.of("udp", "quic", "tcp");

  private final List<String> preference;
  private final Map<String, TransportProvider> providers;

  /**
   * A selector over {@code providers}.
   *
   * @param preference transport names, most preferred first; empty means {@link
   *     #DEFAULT_PREFERENCE} followed by every other provider by name, except the in-process
   *     transport, which only a channel that names it uses
   */
  public TransportSelector(List<String> preference, Iterable<? extends TransportProvider> providers) {
    this.providers = new LinkedHashMap<>();
    List<TransportProvider> sorted = new ArrayList<>();
    providers.forEach(sorted::add);
    sorted.sort(Comparator.comparing(TransportProvider::name));
    for (TransportProvider p : sorted) {
      this.providers.putIfAbsent(p.name(), p);
    }
    if (preference.isEmpty()) {
      List<String> order = new ArrayList<>(DEFAULT_PREFERENCE);
      for (String name : this.providers.keySet()) {
        if (!order.contains(name) && !InProcessTransportProvider.NAME.equals(name)) {
          order.add(name);
        }
      }
      this.preference = List.copyOf(order);
    } else {
      this.preference = List.copyOf(preference);
    }
  }

  /** A selector over the providers {@link ServiceLoader} finds with this class's loader. */
  public static TransportSelector fromServiceLoader(List<String> preference) {
    return fromServiceLoader(preference, List.of());
  }

  /**
   * A selector over {@code explicit} providers (bound by hand or by Guice) and those {@link
   * ServiceLoader} finds; an explicit provider wins over a discovered one of the same name.
   */
  public static TransportSelector fromServiceLoader(List<String> preference,
      List<? extends TransportProvider> explicit) {
    Map<String, TransportProvider> all = new LinkedHashMap<>();
    for (TransportProvider p : explicit) {
      all.put(p.name(), p);
    }
    for (TransportProvider p : ServiceLoader.load(TransportProvider.class,
        TransportSelector.class.getClassLoader())) {
      all.putIfAbsent(p.name(), p);
    }
    return new TransportSelector(preference, all.values());
  }

  /** The preference order in force. */
  public List<String> preference() {
    return preference;
  }

  /**
   * The transport to connect with now.
   *
   * @throws StatusRuntimeException UNAVAILABLE naming every preferred transport and why it cannot
   *     be used
   */
  public TransportProvider select() {
    StringBuilder why = new StringBuilder();
    for (String name : preference) {
      TransportProvider p = providers.get(name);
      if (p != null && p.isAvailable()) {
        return p;
      }
      why.append(why.length() == 0 ? "" : "; ").append(name).append(": ")
          .append(p == null ? "not on the class path" : p.unavailableReason());
    }
    throw Status.UNAVAILABLE.withDescription("none of the preferred transports " + preference
        + " can be used (" + why + "); transports on the class path: " + providers.keySet())
        .asRuntimeException();
  }

  /** The provider named {@code name} if it is on the class path, else null. */
  public TransportProvider provider(String name) {
    return providers.get(name);
  }
}
