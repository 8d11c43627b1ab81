package dev.tern.rpc;

import dev.tern.rpc.inprocess.InProcessTransportProvider;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.rpc.spi.TransportProvider;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;

/**
 * Chooses the transports a channel races when it connects ({@link #candidates}).
 *
 * <p>Only transports on the class path and {@linkplain TransportProvider#isAvailable() available}
 * are candidates. With the default preference ({@link #DEFAULT_PREFERENCE}) a channel races the
 * first {@linkplain TransportProvider#isDatagram() datagram transport} ({@code udp} or {@code
 * quic}) that is not marked broken against the first stream transport ({@code tcp}), the datagram
 * one first unless the stream one is the transport that worked last time and beat it then; with a
 * preference it was given, it races every named transport that is not marked broken, in the order
 * given. Transports marked broken in the {@link TransportMemory} are left out while another
 * candidate remains. The channel asks on every (re)connect.
 */
public final class TransportSelector {
  /** The order used when a channel sets none: Tern's UDP protocol, then QUIC, then TCP. */
  public static final List<String> DEFAULT_PREFERENCE =
      Collections.unmodifiableList(Arrays.asList("udp", "quic", "tcp"));

  /**
   * The names of Tern's own transports that run over UDP.
   *
   * @deprecated a transport says itself whether it runs over datagrams ({@link
   *     TransportProvider#isDatagram()}); the selector asks the provider and no longer reads this
   *     set, so a third-party datagram transport under another name is raced as one
   */
  @Deprecated
  public static final Set<String> DATAGRAM_TRANSPORTS =
      Collections.unmodifiableSet(new LinkedHashSet<>(Arrays.asList("udp", "quic")));

  private final List<String> preference;
  private final boolean explicit;
  private final Map<String, TransportProvider> providers;
  /**
   * Whether the channel is plaintext: transports that {@linkplain TransportProvider#requiresTls()
   * require TLS} are left out.
   */
  private final boolean plaintext;
  /** Why a transport cannot serve the channel's options ({@link TransportProvider#unusableReason}). */
  private final Map<String, String> unusable;
  /** The channel's options ({@link #configuredFor}), or null when not configured for a channel. */
  private final TransportOptions options;

  /**
   * A selector over {@code providers}.
   *
   * @param preference transport names, most preferred first; empty means {@link
   *     #DEFAULT_PREFERENCE} followed by every other provider by name, except the in-process
   *     transport, which only a channel that names it uses
   * @param providers the transports to choose from; of several with one name, the first given is
   *     kept
   * @throws NullPointerException if {@code preference} or {@code providers} is null
   */
  public TransportSelector(List<String> preference, Iterable<? extends TransportProvider> providers) {
    this(preference, providers, false, Collections.emptyMap(), null);
  }

  private TransportSelector(List<String> preference, Iterable<? extends TransportProvider> providers,
      boolean plaintext, Map<String, String> unusable, TransportOptions options) {
    this.plaintext = plaintext;
    this.unusable = unusable;
    this.options = options;
    this.providers = new LinkedHashMap<>();
    List<TransportProvider> sorted = new ArrayList<>();
    providers.forEach(sorted::add);
    sorted.sort(Comparator.comparing(TransportProvider::name));
    for (TransportProvider p : sorted) {
      this.providers.putIfAbsent(p.name(), p);
    }
    this.explicit = !preference.isEmpty();
    if (preference.isEmpty()) {
      List<String> order = new ArrayList<>(DEFAULT_PREFERENCE);
      for (String name : this.providers.keySet()) {
        if (!order.contains(name) && !InProcessTransportProvider.NAME.equals(name)) {
          order.add(name);
        }
      }
      this.preference = Collections.unmodifiableList(new ArrayList<>(order));
    } else {
      this.preference = Collections.unmodifiableList(new ArrayList<>(preference));
    }
  }

  /**
   * A selector over the providers {@link ServiceLoader} finds with this class's loader.
   *
   * @param preference transport names, most preferred first; empty for the default order
   * @return the selector
   */
  public static TransportSelector fromServiceLoader(List<String> preference) {
    return fromServiceLoader(preference, Collections.emptyList());
  }

  /**
   * A selector over {@code explicit} providers (bound by hand or by Guice) and those {@link
   * ServiceLoader} finds; an explicit provider wins over a discovered one of the same name.
   *
   * @param preference transport names, most preferred first; empty for the default order
   * @param explicit providers given by hand, each winning over a discovered one of its name
   * @return the selector
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

  /**
   * This selector for a plaintext channel: transports that {@linkplain
   * TransportProvider#requiresTls() require TLS} are not candidates (the reason is given if
   * nothing else is left).
   */
  TransportSelector plaintext() {
    return new TransportSelector(explicit ? preference : Collections.emptyList(), providers.values(), true, unusable,
        options);
  }

  /**
   * This selector for a channel with {@code options}: with the default preference, a transport
   * that says it cannot serve them ({@link TransportProvider#unusableReason}) is not a candidate.
   */
  TransportSelector configuredFor(TransportOptions options) {
    Map<String, String> reasons = new LinkedHashMap<>();
    for (TransportProvider p : providers.values()) {
      String why = p.unusableReason(options);
      if (why != null) {
        reasons.put(p.name(), why);
      }
    }
    return new TransportSelector(explicit ? preference : Collections.emptyList(), providers.values(), plaintext,
        Collections.unmodifiableMap(new LinkedHashMap<>(reasons)), options);
  }

  /**
   * Where and how to connect {@code p} to {@code authority} as its server advertised it: the port
   * and the options of the {@code alt-svc} alternative {@code memory} holds for it, or null if it
   * holds none that is fresh, on the same host, and that this client can use ({@link
   * TransportProvider#optionsForAlternative}, then {@link TransportProvider#unusableReason}).
   */
  Route advertisedRoute(TransportProvider p, String authority, TransportMemory memory) {
    if (authority == null || memory == null || p.altSvcProtocolId() == null) {
      return null;
    }
    AltSvc.Alternative alt = memory.advertisement(authority, p.name());
    if (alt == null || !alt.sameHost() || !alt.protocolId().equals(p.altSvcProtocolId())) {
      return null;
    }
    TransportOptions base = options != null ? options : TransportOptions.defaults();
    TransportOptions o = p.optionsForAlternative(base, alt.parameters());
    return o == null || p.unusableReason(o) != null ? null : new Route(alt.port(), o);
  }

  /**
   * An advertised way to reach a server over one transport.
   *
   * @param port the advertised port, on the host the channel resolved
   * @param options the options to connect with
   */
  record Route(int port, TransportOptions options) {}

  /**
   * The transport named by {@code protocolId} in an {@code alt-svc} advertisement ({@link
   * TransportProvider#altSvcProtocolId()}), among those on the class path; null if none.
   */
  String transportForProtocolId(String protocolId) {
    for (TransportProvider p : providers.values()) {
      if (protocolId.equals(p.altSvcProtocolId())) {
        return p.name();
      }
    }
    return null;
  }

  /** The names of the transports on the class path (or given by hand). */
  java.util.Set<String> names() {
    return java.util.Collections.unmodifiableSet(providers.keySet());
  }

  /**
   * The preference order in force: the one given, or the default followed by the other providers.
   *
   * @return transport names, most preferred first; unmodifiable
   */
  public List<String> preference() {
    return preference;
  }

  /**
   * Whether the preference was given by the channel or is the default order.
   *
   * @return true if the channel gave it, false for the default order
   */
  public boolean explicit() {
    return explicit;
  }

  /**
   * The most preferred transport that can be used here, ignoring what was learned per authority.
   *
   * @return the first preferred transport on the class path and available
   * @throws StatusRuntimeException UNAVAILABLE naming every preferred transport and why it cannot
   *     be used
   */
  public TransportProvider select() {
    return usable().get(0);
  }

  /**
   * The transports to race for {@code authority} now, in the order they start: the first at once,
   * each next one after the head start or when every earlier one has failed. Transports marked
   * broken in {@code memory} are left out. With the default preference the candidates are the
   * first datagram transport and the first stream transport, the datagram one first, unless the
   * transport that {@linkplain TransportMemory#lastWorked last worked} for {@code authority} beat
   * the other in the race it won and the other has no broken mark (not even an expired one): then
   * the one that worked goes first. A preference the channel gave is kept as given. Never empty:
   * when every usable transport is marked broken, the most preferred one is tried anyway.
   *
   * @param authority the channel's authority ({@code host:port}), the key into {@code memory}
   * @param memory what was learned per authority: which transports are marked broken, which one
   *     worked last
   * @return the candidates, the one to start first first; never empty
   * @throws StatusRuntimeException UNAVAILABLE naming every preferred transport and why it cannot
   *     be used
   */
  public List<TransportProvider> candidates(String authority, TransportMemory memory) {
    return candidates(authority, memory, t -> true);
  }

  /**
   * As {@link #candidates(String, TransportMemory)}, leaving out too the transports {@code allowed}
   * refuses (a call policy's open circuit breaker); if that leaves none, the refusals are not
   * heeded.
   *
   * @param authority the channel's authority ({@code host:port}), the key into {@code memory}
   * @param memory what was learned per authority: which transports are marked broken, which one
   *     worked last
   * @param allowed whether a transport, by name, may race now
   * @return the candidates, the one to start first first; never empty
   * @throws StatusRuntimeException UNAVAILABLE naming every preferred transport and why it cannot
   *     be used
   */
  public List<TransportProvider> candidates(String authority, TransportMemory memory,
      java.util.function.Predicate<String> allowed) {
    List<TransportProvider> usable = usable(authority, memory);
    List<TransportProvider> fresh = new ArrayList<>();
    List<TransportProvider> unmarked = new ArrayList<>();
    for (TransportProvider p : usable) {
      if (!memory.isBroken(authority, p.name())) {
        unmarked.add(p);
        if (allowed.test(p.name())) {
          fresh.add(p);
        }
      }
    }
    if (fresh.isEmpty()) {
      fresh = unmarked;
    }
    List<TransportProvider> out = new ArrayList<>();
    if (explicit) {
      out.addAll(fresh);
    } else {
      TransportProvider datagram = null;
      TransportProvider stream = null;
      for (TransportProvider p : fresh) {
        if (p.isDatagram()) {
          datagram = datagram == null ? p : datagram;
        } else {
          stream = stream == null ? p : stream;
        }
      }
      // The datagram transport goes first (it is the one that may be black-holed), whatever the
      // preference says of a third-party one that is not in the default order.
      if (datagram != null) {
        out.add(datagram);
      }
      if (stream != null) {
        out.add(stream);
      }
      rememberedFirst(authority, memory, out);
    }
    return out.isEmpty() ? Collections.singletonList(usable.get(0)) : out;
  }

  /**
   * Moves the transport that last worked for {@code authority} to the front of {@code out} if it
   * may go ahead of every candidate before it ({@link TransportMemory#mayGoAhead}).
   */
  private static void rememberedFirst(String authority, TransportMemory memory,
      List<TransportProvider> out) {
    String last = memory.lastWorked(authority);
    for (int i = 1; last != null && i < out.size(); i++) {
      if (out.get(i).name().equals(last)) {
        for (int j = 0; j < i; j++) {
          if (!memory.mayGoAhead(authority, last, out.get(j).name())) {
            return;
          }
        }
        out.add(0, out.remove(i));
        return;
      }
    }
  }

  /** The usable transports in preference order; never empty. */
  List<TransportProvider> usable() {
    return usable(null, null);
  }

  /**
   * The usable transports in preference order, counting a transport the channel's options cannot
   * serve as usable when {@code authority}'s server advertised what it lacks; never empty.
   */
  private List<TransportProvider> usable(String authority, TransportMemory memory) {
    List<TransportProvider> out = new ArrayList<>();
    StringBuilder why = new StringBuilder();
    for (String name : preference) {
      TransportProvider p = providers.get(name);
      String misconfigured = explicit ? null : unusable.get(name);
      if (misconfigured != null && p != null && advertisedRoute(p, authority, memory) != null) {
        misconfigured = null;
      }
      if (p != null && p.isAvailable() && !(plaintext && p.requiresTls()) && misconfigured == null) {
        out.add(p);
      } else {
        why.append(why.length() == 0 ? "" : "; ").append(name).append(": ")
            .append(p == null ? "not on the class path" : !p.isAvailable() ? p.unavailableReason()
                : misconfigured != null ? misconfigured
                : "needs TLS, and the channel was built with usePlaintext()");
      }
    }
    if (out.isEmpty()) {
      throw Status.UNAVAILABLE.withDescription("none of the preferred transports " + preference
          + " can be used (" + why + "); transports on the class path: " + providers.keySet())
          .asRuntimeException();
    }
    return out;
  }

  /**
   * The provider named {@code name} if it is on the class path (or given by hand).
   *
   * @param name a transport name, such as {@code "tcp"}
   * @return the provider, or null if there is none of that name
   */
  public TransportProvider provider(String name) {
    return providers.get(name);
  }
}
