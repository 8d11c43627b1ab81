package dev.tern.transport.udp.rpc;

import dev.tern.rpc.spi.DatagramImpairment;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.transport.udp.congestion.CongestionControl;
import dev.tern.transport.udp.connection.AddressValidation;
import dev.tern.transport.udp.connection.ConnectionConfig;
import dev.tern.transport.udp.crypto.CryptoProvider;
import dev.tern.transport.udp.crypto.CryptoProviders;
import dev.tern.transport.udp.handshake.PinnedServerKey;
import dev.tern.transport.udp.handshake.SealedTicketStore;
import dev.tern.transport.udp.handshake.ServerStaticKey;
import dev.tern.transport.udp.handshake.TicketKeys;
import dev.tern.transport.udp.handshake.TicketStore;
import dev.tern.transport.udp.nio.EndpointLoop;
import dev.tern.transport.udp.stream.StreamLimits;
import io.grpc.Attributes;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * The {@code udp} transport's own options. The server authenticates with a static X25519 key
 * the client has pinned in advance (docs/udp-crypto.md §5): the server sets
 * {@link #SERVER_STATIC_KEY} (its private key), every client {@link #PINNED_SERVER_KEY} (the
 * matching public key, {@link #publicKeyOf}). Neither has a default: a server without a key
 * refuses to start, a client without a pin fails its connection, each saying which key is
 * missing.
 *
 * <pre>{@code
 * byte[] key = UdpTransportOptions.newServerKey();          // keep it secret, keep it stable
 * server: .transportOption(UdpTransportOptions.SERVER_STATIC_KEY, key)
 * client: .transportOption(UdpTransportOptions.PINNED_SERVER_KEY, UdpTransportOptions.publicKeyOf(key))
 * }</pre>
 *
 * <p>Clients are anonymous unless they set {@link #CLIENT_STATIC_KEY}: a server that sets {@link
 * #ALLOWED_CLIENT_KEYS} admits only clients proving one of the listed public keys, and every
 * server call sees the key its client proved under {@link #CLIENT_PUBLIC_KEY} in {@code
 * ServerCall.getAttributes()}.
 */
public final class UdpTransportOptions {
  /** Server: its 32-byte X25519 private key. Required. */
  public static final TransportOptions.Key<byte[]> SERVER_STATIC_KEY =
      new TransportOptions.Key<>("udp.serverStaticKey", null);
  /**
   * The id under which the server's key is published and pinned (1 unless rotating keys: a
   * client sends the id of the key it encrypted to). Both sides must use the same.
   */
  public static final TransportOptions.Key<Integer> SERVER_KEY_ID =
      new TransportOptions.Key<>("udp.serverKeyId", 1);
  /** Client: the server's 32-byte X25519 public key. Required. */
  public static final TransportOptions.Key<byte[]> PINNED_SERVER_KEY =
      new TransportOptions.Key<>("udp.pinnedServerKey", null);
  /**
   * Server: further static keys it holds during a rotation, by key id (the next key, published
   * ahead so clients can pin it, or the previous one, kept until no client pins it;
   * docs/udp-crypto.md §5.2). Ids must differ from {@link #SERVER_KEY_ID}. Default: none.
   */
  public static final TransportOptions.Key<Map<Integer, byte[]>> ADDITIONAL_SERVER_KEYS =
      new TransportOptions.Key<>("udp.additionalServerKeys", Collections.emptyMap());
  /**
   * Client: its own 32-byte X25519 private key ({@link #newServerKey()} makes one too), proved to
   * the server in the handshake; the server knows the client by {@link #publicKeyOf} it. Default:
   * none, an anonymous client with a fresh key per connection.
   */
  public static final TransportOptions.Key<byte[]> CLIENT_STATIC_KEY =
      new TransportOptions.Key<>("udp.clientStaticKey", null);
  /**
   * Server: the clients' 32-byte X25519 public keys it admits; any other client (anonymous ones
   * included) fails its handshake with CRYPTO_ERROR "this server does not admit the client's
   * static key", before any call. Default: null, every client admitted.
   */
  public static final TransportOptions.Key<List<byte[]>> ALLOWED_CLIENT_KEYS =
      new TransportOptions.Key<>("udp.allowedClientKeys", null);
  /**
   * Server: the keys its resumption tickets are sealed under ({@link SealedTicketStore},
   * docs/udp-crypto.md §5.4): the current key seals, the previous ones still open tickets issued
   * before a rotation. Instances that should resume each other's clients (behind a load
   * balancer) hold the same keys. Default: null, keys derived from the server's static keys
   * ({@link TicketKeys#derive}), so instances sharing {@link #SERVER_STATIC_KEY} share ticket keys
   * without setting this. Set it to rotate ticket keys apart from the server key.
   */
  public static final TransportOptions.Key<TicketKeys> TICKET_KEYS =
      new TransportOptions.Key<>("udp.ticketKeys", null);
  /**
   * On a server call's attributes ({@code ServerCall.getAttributes()}) and the server transport
   * filters': the 32-byte static public key the client proved in the handshake. It is the
   * client's identity if the client set {@link #CLIENT_STATIC_KEY}, else a random key of that
   * one connection. Each connection has its own array.
   */
  public static final Attributes.Key<byte[]> CLIENT_PUBLIC_KEY =
      Attributes.Key.create("udp.clientPublicKey");
  /**
   * Server: the most connections served at once (10,000); INITIALs beyond are dropped. Unset, the
   * common {@link TransportOptions#MAX_CONNECTIONS} applies if that is set (the server builder's
   * {@code maxConnections}).
   */
  public static final TransportOptions.Key<Integer> MAX_CONNECTIONS =
      new TransportOptions.Key<>("udp.maxConnections", 10_000);

  /**
   * Server: when it answers a new client's first INITIAL with a Retry, which proves the client's
   * address before the server keeps any state for it (docs/protocol.md §9.7, §9.9; RFC 9000
   * §8.1.2): {@code NEVER}, {@code ALWAYS}, or {@code WHEN_BUSY} (the default) once
   * {@link #RETRY_ABOVE_HANDSHAKES} handshakes are in progress. A Retry costs the client one
   * round trip.
   */
  public static final TransportOptions.Key<AddressValidation.RetryPolicy> RETRY_POLICY =
      new TransportOptions.Key<>("udp.retryPolicy", AddressValidation.RetryPolicy.WHEN_BUSY);
  /** Server: handshakes in progress from which {@code WHEN_BUSY} sends Retries (64). */
  public static final TransportOptions.Key<Integer> RETRY_ABOVE_HANDSHAKES =
      new TransportOptions.Key<>("udp.retryAboveHandshakes", 64);
  /**
   * Server: the most handshakes in progress (connections created and not yet confirmed, 1,024);
   * a new client beyond it is refused with CONNECTION_REFUSED, statelessly.
   */
  public static final TransportOptions.Key<Integer> MAX_HANDSHAKES =
      new TransportOptions.Key<>("udp.maxHandshakes", 1024);

  /**
   * The server's connection limit: {@link #MAX_CONNECTIONS} if set, else the common {@link
   * TransportOptions#MAX_CONNECTIONS} if set (0 there: no limit), else 10,000.
   *
   * @param o the server's options
   * @return the limit, 1 or more
   * @throws IllegalArgumentException naming the option if it is negative (or 0 for {@code udp.maxConnections})
   */
  public static int maxConnections(TransportOptions o) {
    if (!o.isSet(MAX_CONNECTIONS) && o.isSet(TransportOptions.MAX_CONNECTIONS)) {
      int common = o.get(TransportOptions.MAX_CONNECTIONS);
      if (common < 0) {
        throw new IllegalArgumentException("maxConnections must be >= 0 (0: no limit), was " + common);
      }
      return common == 0 ? Integer.MAX_VALUE : common;
    }
    int max = o.get(MAX_CONNECTIONS);
    if (max < 1) {
      throw new IllegalArgumentException(MAX_CONNECTIONS.name() + " must be >= 1, was " + max);
    }
    return max;
  }
  /**
   * The congestion controller of each connection's sending side (docs/udp-congestion.md):
   * {@link CongestionControl#BBR} (the default, null: model-based, robust to the random loss of
   * radio links), {@link CongestionControl#CUBIC} (RFC 9438) or {@link CongestionControl#NEW_RENO}
   * (RFC 9002 §7). Each side chooses its own; nothing is negotiated.
   */
  public static final TransportOptions.Key<CongestionControl> CONGESTION_CONTROL =
      new TransportOptions.Key<>("udp.congestionControl", null);

  /**
   * The cryptography each connection runs on: {@code "auto"} (the default: the JDK's where it has
   * every primitive, else BouncyCastle's; on Android always BouncyCastle's), {@code "jdk"} or
   * {@code "bc"} (BouncyCastle's, which must be on the class path). An unknown name, or a provider
   * that cannot run here, fails the transport's creation with a message saying why.
   */
  public static final TransportOptions.Key<String> CRYPTO_PROVIDER =
      new TransportOptions.Key<>("udp.cryptoProvider", CryptoProviders.AUTO);

  /**
   * The protocol's idle timeout, {@code max_idle_timeout} in milliseconds (30 s; 0: none): a
   * connection that receives nothing for the smaller of both sides' values is discarded
   * silently (RFC 9000 §10.1). Keep-alive PINGs defer it: the keep-alive interval in force is
   * at most half of it (docs/protocol.md §10.7).
   */
  public static final TransportOptions.Key<Long> MAX_IDLE_TIMEOUT_MILLIS =
      new TransportOptions.Key<>("udp.maxIdleTimeoutMillis", 30_000L);
  /**
   * Dead-peer detection (docs/protocol.md §8): an established connection that hears nothing from
   * its peer over this many consecutive probe timeouts (RFC 9002 §6.2), or for as long as they
   * take back to back (a call that keeps sending re-arms the probe timer, which then never
   * expires), and for at least 15 s with streams open (500 ms for the check of a quiet connection
   * before a call), is discarded, its
   * calls failing UNAVAILABLE "... is dead: the peer stopped answering"; a crashed or restarted
   * peer is found in seconds instead of at the idle timeout. 3 by default; 0 turns it off (the
   * idle timeout and keep-alive timeout alone decide).
   */
  public static final TransportOptions.Key<Integer> DEAD_AFTER_PROBE_TIMEOUTS =
      new TransportOptions.Key<>("udp.deadAfterProbeTimeouts", 3);

  /**
   * A server's resumption tickets (docs/protocol.md §9.10): with one, the server issues a ticket
   * on each finished connection and accepts a resuming client's early data (0-RTT) when the
   * store finds its ticket fresh. Default null: a {@link SealedTicketStore} under
   * {@link #TICKET_KEYS} (or keys derived from the server's static keys), so a server issues
   * tickets unless told otherwise. Instances sharing one store's ticket keys let a client resume
   * on any of them.
   */
  public static final TransportOptions.Key<TicketStore> TICKET_STORE =
      new TransportOptions.Key<>("udp.ticketStore", null);

  /**
   * Test-only: the transport's socket drops, duplicates, reorders and delays its own datagrams,
   * both directions, as the impairment says (seeded, so a run can be repeated), for tests that
   * need real I/O under loss. On a client, its connection's socket; on a server, every
   * connection's. Default null: none.
   */
  public static final TransportOptions.Key<DatagramImpairment> IMPAIRMENT =
      new TransportOptions.Key<>("udp.testImpairment", null);

  /**
   * A directory for event logs: each connection writes its packets, losses, recovery state and
   * path changes there as a qlog file (docs/protocol.md §10.9; {@code client-<id>.sqlog} or
   * {@code server-<id>.sqlog}, both ends naming the connection by its original Destination
   * Connection ID), which qvis reads. Default null: no log. For looking at a run, not for
   * production: a log takes a few hundred bytes per packet.
   */
  public static final TransportOptions.Key<java.nio.file.Path> QLOG_DIR =
      new TransportOptions.Key<>("udp.qlogDir", null);

  /** The session-store kind under which a {@code udp} client keeps its tickets. */
  public static final String TICKET_KIND = "udp.ticket";

  /**
   * A keep-alive interval this long or longer turns keep-alive off, as in grpc-java (its
   * builders' {@code AS_LARGE_AS_INFINITE}, 1000 days).
   */
  static final long KEEP_ALIVE_OFF_MILLIS = java.util.concurrent.TimeUnit.DAYS.toMillis(1000);
  /** The keep-alive interval when the channel names none (docs/protocol.md §10.7). */
  static final long DEFAULT_KEEP_ALIVE_MILLIS = 15_000;

  private UdpTransportOptions() {}

  /** A new random server private key (32 bytes from {@link SecureRandom}). */
  public static byte[] newServerKey() {
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    return key;
  }

  /**
   * The public key to pin for the server's private key.
   *
   * @throws IllegalArgumentException if {@code privateKey} is not 32 bytes
   */
  public static byte[] publicKeyOf(byte[] privateKey) {
    if (privateKey == null || privateKey.length != 32) {
      throw new IllegalArgumentException("a server key is 32 bytes, got "
          + (privateKey == null ? "null" : privateKey.length + " bytes"));
    }
    return ConnectionConfig.defaults().cryptoProvider().x25519().publicKey(privateKey);
  }

  /**
   * The protocol settings both sides share: versions, windows, stream limit, timeouts. Keep-alive
   * (docs/protocol.md §10.7): {@link TransportOptions#KEEP_ALIVE_MILLIS} unset (0) keeps the
   * protocol's 15 s; 1000 days or more turns it off; {@link
   * TransportOptions#KEEP_ALIVE_TIMEOUT_MILLIS} bounds how long a PING may go unanswered.
   *
   * @throws IllegalArgumentException naming the option if {@link #MAX_IDLE_TIMEOUT_MILLIS} is
   *     negative
   */
  static ConnectionConfig.Builder base(TransportOptions o) {
    int window = Math.max(1, o.get(TransportOptions.FLOW_CONTROL_WINDOW));
    int streams = Math.max(1, o.get(TransportOptions.MAX_CONCURRENT_STREAMS));
    // The send buffer is one window: a writer is told to wait (isReady false) once a window's
    // worth waits for the peer, as over HTTP/2.
    StreamLimits limits = new StreamLimits(Math.max(4L << 20, 4L * window), window, streams,
        window);
    int[] versions = o.get(TransportOptions.PROTOCOL_VERSIONS);
    long[] rpc = new long[versions.length];
    for (int i = 0; i < versions.length; i++) {
      rpc[i] = versions[i];
    }
    ConnectionConfig.Builder b = ConnectionConfig.builder().limits(limits).rpcVersions(rpc)
        .timerPrecisionNs(EndpointLoop.TIMER_PRECISION_NS);
    String crypto = o.get(CRYPTO_PROVIDER);
    if (crypto != null && !CryptoProviders.AUTO.equals(crypto)) {
      try {
        b.cryptoProvider(CryptoProviders.byName(crypto));
      } catch (IllegalArgumentException | IllegalStateException e) {
        throw new IllegalArgumentException(CRYPTO_PROVIDER.name()
            + " (UdpTransportOptions.CRYPTO_PROVIDER): " + e.getMessage(), e);
      }
    }
    CongestionControl cc = o.get(CONGESTION_CONTROL);
    if (cc != null) {
      b.congestionControl(cc);
    }
    long idle = o.get(MAX_IDLE_TIMEOUT_MILLIS);
    if (idle < 0) {
      throw new IllegalArgumentException(MAX_IDLE_TIMEOUT_MILLIS.name()
          + " (UdpTransportOptions.MAX_IDLE_TIMEOUT_MILLIS) must be 0 (no idle timeout) or more,"
          + " was " + idle);
    }
    b.idleTimeoutMs(idle);
    int dead = o.get(DEAD_AFTER_PROBE_TIMEOUTS);
    if (dead < 0) {
      throw new IllegalArgumentException(DEAD_AFTER_PROBE_TIMEOUTS.name()
          + " (UdpTransportOptions.DEAD_AFTER_PROBE_TIMEOUTS) must be 0 (off) or more, was " + dead);
    }
    b.deadAfterProbeTimeouts(dead);
    long keepAlive = o.get(TransportOptions.KEEP_ALIVE_MILLIS);
    if (keepAlive >= KEEP_ALIVE_OFF_MILLIS) {
      b.keepAliveMs(0);
    } else if (keepAlive > 0) {
      b.keepAliveMs(keepAlive);
    }
    b.keepAliveTimeoutMs(Math.max(0, o.get(TransportOptions.KEEP_ALIVE_TIMEOUT_MILLIS)));
    return b;
  }

  /** The server's configuration, or an IllegalArgumentException naming the missing key. */
  static ConnectionConfig server(TransportOptions o) {
    byte[] key = o.get(SERVER_STATIC_KEY);
    if (key == null) {
      throw new IllegalArgumentException("a udp server needs its static key: set "
          + SERVER_STATIC_KEY.name() + " (UdpTransportOptions.SERVER_STATIC_KEY) to its 32-byte"
          + " X25519 private key");
    }
    List<ServerStaticKey> keys = new ArrayList<>();
    keys.add(new ServerStaticKey(o.get(SERVER_KEY_ID), key));
    for (Map.Entry<Integer, byte[]> e : o.get(ADDITIONAL_SERVER_KEYS).entrySet()) {
      if (e.getKey() == null || e.getValue() == null || e.getValue().length != 32) {
        throw new IllegalArgumentException(ADDITIONAL_SERVER_KEYS.name()
            + " (UdpTransportOptions.ADDITIONAL_SERVER_KEYS) maps a key id to a 32-byte X25519"
            + " private key, got id " + e.getKey() + " -> "
            + (e.getValue() == null ? "null" : e.getValue().length + " bytes"));
      }
      keys.add(new ServerStaticKey(e.getKey(), e.getValue()));
    }
    ConnectionConfig.Builder b = base(o).serverStaticKeys(keys.toArray(new ServerStaticKey[0]));
    TicketStore tickets = o.get(TICKET_STORE);
    b.ticketStore(tickets != null ? tickets : sealedTicketStore(o, keys));
    b.addressValidation(addressValidation(o));
    List<byte[]> allowed = o.get(ALLOWED_CLIENT_KEYS);
    if (allowed != null) {
      b.allowedClientKeys(allowed);
    }
    return b.build();
  }

  /** The server's Retry policy and handshake bound, or an IllegalArgumentException naming one. */
  static AddressValidation addressValidation(TransportOptions o) {
    AddressValidation.RetryPolicy policy = o.get(RETRY_POLICY);
    int retryAbove = o.get(RETRY_ABOVE_HANDSHAKES);
    int max = o.get(MAX_HANDSHAKES);
    if (policy == null) {
      throw new IllegalArgumentException(RETRY_POLICY.name()
          + " (UdpTransportOptions.RETRY_POLICY) must be NEVER, ALWAYS or WHEN_BUSY, was null");
    }
    if (retryAbove < 0) {
      throw new IllegalArgumentException(RETRY_ABOVE_HANDSHAKES.name()
          + " (UdpTransportOptions.RETRY_ABOVE_HANDSHAKES) must be >= 0, was " + retryAbove);
    }
    if (max < 1) {
      throw new IllegalArgumentException(MAX_HANDSHAKES.name()
          + " (UdpTransportOptions.MAX_HANDSHAKES) must be >= 1, was " + max);
    }
    return AddressValidation.defaults().withRetryPolicy(policy)
        .withRetryAboveHandshakes(retryAbove).withMaxHandshakes(max);
  }

  /** The client's configuration, or an IllegalArgumentException naming the missing key. */
  static ConnectionConfig client(TransportOptions o) {
    byte[] pin = o.get(PINNED_SERVER_KEY);
    if (pin == null) {
      throw new IllegalArgumentException("a udp client needs the server's public key: set "
          + PINNED_SERVER_KEY.name() + " (UdpTransportOptions.PINNED_SERVER_KEY) to the 32-byte"
          + " X25519 public key the server's operator published");
    }
    return base(o).pinnedServerKeys(new PinnedServerKey(o.get(SERVER_KEY_ID), pin))
        .clientStaticKey(o.get(CLIENT_STATIC_KEY)).build();
  }

  /**
   * The server's ticket store: tickets sealed under {@link #TICKET_KEYS}, or under keys derived
   * from its static keys (the key it identifies with seals).
   */
  static SealedTicketStore sealedTicketStore(TransportOptions o, List<ServerStaticKey> keys) {
    TicketKeys explicit = o.get(TICKET_KEYS);
    CryptoProvider provider = CryptoProviders.auto();
    return SealedTicketStore.of(provider,
        explicit != null ? explicit : TicketKeys.derive(provider, keys));
  }
}
