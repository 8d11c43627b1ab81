package dev.tern.transport.udp.connection;

import dev.tern.transport.udp.congestion.CongestionControl;
import dev.tern.transport.udp.congestion.CongestionControllers;
import dev.tern.transport.udp.crypto.AeadAlgorithm;
import dev.tern.transport.udp.crypto.CryptoProvider;
import dev.tern.transport.udp.crypto.CryptoProviders;
import dev.tern.transport.udp.handshake.PinnedServerKey;
import dev.tern.transport.udp.handshake.ServerStaticKey;
import dev.tern.transport.udp.handshake.TicketStore;
import dev.tern.transport.udp.packet.Versions;
import dev.tern.transport.udp.stream.StreamLimits;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * A connection's settings (docs/protocol.md §7 for the transport parameters they become).
 * Immutable; build one with {@link #builder()}.
 */
public final class ConnectionConfig {
  /** Wire versions this side speaks, most preferred first. */
  final int[] versions;
  /** Tern RPC protocol versions this side speaks. */
  final long[] rpcVersions;
  final StreamLimits limits;
  final long idleTimeoutMs;
  final long maxAckDelayMs;
  final int maxDatagramBytes;
  final CongestionControl congestionControl;
  final boolean priorityScheduling;
  final int maxProbedDatagramBytes;
  final long keepAliveMs;
  /** How long a keep-alive PING may go without any packet back, ms; 0: the idle timeout decides. */
  final long keepAliveTimeoutMs;
  final boolean wantReceiveTimestamps;
  /** Consecutive probe timeouts with nothing heard after which the peer is dead; 0: never. */
  final int deadAfterProbeTimeouts;
  /** The least silence, ms, that {@link #deadAfterProbeTimeouts} may declare dead. */
  final long minDeadSilenceMs;
  final int serverId;
  final int configRotation;
  /** Delay of the first handshake datagram's copy, ns; negative: no copy. */
  final long handshakeCopyDelayNs;
  /** Whether the first datagram with stream data is sent twice too. */
  final boolean firstDataCopy;
  /** How late the driver's timers may fire, ns; 0: on time (the simulator). */
  final long timerPrecisionNs;
  /**
   * The source of values a peer or an off-path attacker must not predict: connection IDs,
   * PATH_CHALLENGE data, the Version Negotiation packet's unused bits, the connection-ID table's
   * hash key, the congestion controller's seed.
   */
  final Random random;
  /** A deliberate defect for the simulator's self-check ({@link Mutant}); NONE otherwise. */
  final Mutant mutant;
  /** The primitives of packet protection and the handshake (docs/udp-crypto.md §1). */
  final CryptoProvider cryptoProvider;
  /** The AEAD a client proposes for the handshake and the 1-RTT packets. */
  final AeadAlgorithm handshakeCipher;
  /** A client's trusted server static keys, most preferred first (docs/udp-crypto.md §5.2). */
  final List<PinnedServerKey> pinnedServerKeys;
  /** A server's static keys: its current key and, during a rotation, the next or previous one. */
  final List<ServerStaticKey> serverStaticKeys;
  /**
   * A client's own X25519 private key, its identity to servers that authenticate clients; null
   * for an anonymous client, which uses a fresh key per connection (docs/udp-crypto.md §5.2).
   */
  final byte[] clientStaticKey;
  /** A server's admission decision on a client's static public key; null admits every client. */
  final Predicate<byte[]> clientAllowed;
  /** A server's resumption tickets (docs/udp-crypto.md §5.2); null refuses every resumption. */
  final TicketStore ticketStore;
  /**
   * A server's limit on the stream data it takes in 0-RTT from a resumed client, stated in the
   * tickets it issues (docs/protocol.md §9.10); 0 issues tickets without early data.
   */
  final long maxEarlyDataBytes;
  /** The wall clock tickets are timed by (receipt, age), ms. */
  final LongSupplier wallClock;
  /**
   * A client's ticket to resume with (IKpsk2 and 0-RTT), or null. Set only by
   * {@link #withResumption} on a fresh copy, before the copy is shared.
   */
  SessionTicket resumptionTicket;
  /** A client's address-validation token for its first INITIAL (RFC 9000 §8.1.3); null if none. */
  byte[] addressToken; // set once, by a constructor or withAddressToken
  /** A server's Retry policy, handshake bound and tokens (docs/protocol.md §9.8, §9.9). */
  AddressValidation addressValidation; // set once, by a constructor or withAddressValidation

  /** Shared by every configuration that names no source: SecureRandom is thread-safe. */
  private static final SecureRandom SECURE_RANDOM = new SecureRandom();

  /** The provider of configurations that name none, chosen once. */
  private static final class DefaultProvider {
    static final CryptoProvider INSTANCE = CryptoProviders.auto();
  }

  private ConnectionConfig(Builder b) {
    this.versions = b.versions.clone();
    this.rpcVersions = b.rpcVersions.clone();
    this.limits = b.limits;
    this.idleTimeoutMs = b.idleTimeoutMs;
    this.maxAckDelayMs = b.maxAckDelayMs;
    this.maxDatagramBytes = b.maxDatagramBytes;
    this.congestionControl = b.congestionControl;
    this.priorityScheduling = b.priorityScheduling;
    this.maxProbedDatagramBytes = Math.max(b.maxProbedDatagramBytes, b.maxDatagramBytes);
    this.keepAliveMs = b.keepAliveMs;
    this.keepAliveTimeoutMs = b.keepAliveTimeoutMs;
    this.wantReceiveTimestamps = b.wantReceiveTimestamps;
    this.deadAfterProbeTimeouts = b.deadAfterProbeTimeouts;
    this.minDeadSilenceMs = b.minDeadSilenceMs;
    this.serverId = b.serverId;
    this.configRotation = b.configRotation;
    this.handshakeCopyDelayNs = b.handshakeCopy ? b.handshakeCopyDelayMs * 1_000_000L : -1;
    this.firstDataCopy = b.firstDataCopy;
    this.timerPrecisionNs = b.timerPrecisionNs;
    this.random = SECURE_RANDOM;
    this.cryptoProvider = b.cryptoProvider != null ? b.cryptoProvider : DefaultProvider.INSTANCE;
    this.handshakeCipher = b.handshakeCipher;
    this.pinnedServerKeys = b.pinnedServerKeys;
    this.serverStaticKeys = b.serverStaticKeys;
    this.clientStaticKey = b.clientStaticKey;
    this.clientAllowed = b.clientAllowed;
    this.ticketStore = b.ticketStore;
    this.maxEarlyDataBytes = b.maxEarlyDataBytes;
    this.wallClock = b.wallClock;
    this.resumptionTicket = b.resumptionTicket;
    this.addressToken = b.addressToken;
    this.addressValidation = b.addressValidation;
    this.mutant = Mutant.NONE;
  }

  private ConnectionConfig(ConnectionConfig o, Random random, List<PinnedServerKey> pinned,
      List<ServerStaticKey> staticKeys, Mutant mutant) {
    this.versions = o.versions;
    this.rpcVersions = o.rpcVersions;
    this.limits = o.limits;
    this.idleTimeoutMs = o.idleTimeoutMs;
    this.maxAckDelayMs = o.maxAckDelayMs;
    this.maxDatagramBytes = o.maxDatagramBytes;
    this.congestionControl = o.congestionControl;
    this.priorityScheduling = o.priorityScheduling;
    this.maxProbedDatagramBytes = o.maxProbedDatagramBytes;
    this.keepAliveMs = o.keepAliveMs;
    this.keepAliveTimeoutMs = o.keepAliveTimeoutMs;
    this.wantReceiveTimestamps = o.wantReceiveTimestamps;
    this.deadAfterProbeTimeouts = o.deadAfterProbeTimeouts;
    this.minDeadSilenceMs = o.minDeadSilenceMs;
    this.serverId = o.serverId;
    this.configRotation = o.configRotation;
    this.handshakeCopyDelayNs = o.handshakeCopyDelayNs;
    this.firstDataCopy = o.firstDataCopy;
    this.timerPrecisionNs = o.timerPrecisionNs;
    this.random = random;
    this.cryptoProvider = o.cryptoProvider;
    this.handshakeCipher = o.handshakeCipher;
    this.pinnedServerKeys = pinned;
    this.serverStaticKeys = staticKeys;
    this.clientStaticKey = o.clientStaticKey;
    this.clientAllowed = o.clientAllowed;
    this.ticketStore = o.ticketStore;
    this.maxEarlyDataBytes = o.maxEarlyDataBytes;
    this.wallClock = o.wallClock;
    this.resumptionTicket = o.resumptionTicket;
    this.addressToken = o.addressToken;
    this.addressValidation = o.addressValidation;
    this.mutant = mutant;
  }

  /**
   * This configuration with a deterministic source of randomness in place of the default
   * {@link SecureRandom}: for the simulator and tests only, so that a seed replays a run. A
   * deployed endpoint must keep the default, or its connection IDs and path challenges become
   * predictable (RFC 9000 §5.1, §8.2; docs/protocol.md §2.3).
   *
   * @param random the source (used by every connection and endpoint built with the result)
   */
  public ConnectionConfig withDeterministicRandom(Random random) {
    if (random == null) {
      throw new IllegalArgumentException("random must not be null");
    }
    return new ConnectionConfig(this, random, pinnedServerKeys, serverStaticKeys, mutant);
  }

  /**
   * This configuration with a deliberate recovery defect ({@link Mutant}): for the simulator
   * campaign's check that it notices such defects. Package-private: only the module's tests reach
   * it.
   */
  ConnectionConfig withMutant(Mutant mutant) {
    if (mutant == null) {
      throw new IllegalArgumentException("mutant must not be null");
    }
    return new ConnectionConfig(this, random, pinnedServerKeys, serverStaticKeys, mutant);
  }

  /** The deliberate defect in force, {@link Mutant#NONE} normally. */
  Mutant mutant() {
    return mutant;
  }

  /**
   * This configuration with {@code keys} as the client's pinned server keys (see
   * {@link Builder#pinnedServerKeys}).
   */
  public ConnectionConfig withPinnedServerKeys(PinnedServerKey... keys) {
    return new ConnectionConfig(this, random, checkedPins(keys), serverStaticKeys, mutant);
  }

  /**
   * This configuration with {@code keys} as the server's static keys (see
   * {@link Builder#serverStaticKeys}).
   */
  public ConnectionConfig withServerStaticKeys(ServerStaticKey... keys) {
    return new ConnectionConfig(this, random, pinnedServerKeys, checkedStaticKeys(keys), mutant);
  }

  /**
   * This configuration resuming with {@code ticket} (null: a full handshake): the client's
   * connections then send an IKpsk2 ClientHello to the ticket's server key and may send early
   * data in 0-RTT packets (docs/protocol.md §9.10). A ticket is used once: give each connection
   * its own.
   */
  public ConnectionConfig withResumption(SessionTicket ticket) {
    ConnectionConfig c = new ConnectionConfig(this, random, pinnedServerKeys, serverStaticKeys,
        mutant);
    c.resumptionTicket = ticket;
    return c;
  }

  /** The ticket a client resumes with, or null. */
  public SessionTicket resumptionTicket() {
    return resumptionTicket;
  }

  /** The server's resumption tickets, or null. */
  public TicketStore ticketStore() {
    return ticketStore;
  }

  /** The wall clock, ms, that times tickets. */
  public LongSupplier wallClock() {
    return wallClock;
  }

  /** The client's pinned server keys, most preferred first (empty on a server). */
  public List<PinnedServerKey> pinnedServerKeys() {
    return pinnedServerKeys;
  }

  /** The server's static keys (empty on a client). */
  public List<ServerStaticKey> serverStaticKeys() {
    return serverStaticKeys;
  }

  /** The crypto provider. */
  public CryptoProvider cryptoProvider() {
    return cryptoProvider;
  }

  /** The AEAD a client proposes (a server accepts ChaCha20-Poly1305 and AES-256-GCM). */
  public AeadAlgorithm handshakeCipher() {
    return handshakeCipher;
  }

  /** Whether a client has its own static key (it authenticates itself), not a per-connection one. */
  public boolean hasClientStaticKey() {
    return clientStaticKey != null;
  }

  /** Whether a server decides which clients it admits (else it admits every client). */
  public boolean authenticatesClients() {
    return clientAllowed != null;
  }

  private static List<PinnedServerKey> checkedPins(PinnedServerKey[] keys) {
    if (keys == null || keys.length == 0) {
      throw new IllegalArgumentException("pinnedServerKeys must name at least one key, got "
          + (keys == null ? "null" : "none"));
    }
    for (int i = 0; i < keys.length; i++) {
      if (keys[i] == null) {
        throw new IllegalArgumentException("pinnedServerKeys[" + i + "] is null");
      }
    }
    return Collections.unmodifiableList(Arrays.asList(keys.clone()));
  }

  private static List<ServerStaticKey> checkedStaticKeys(ServerStaticKey[] keys) {
    if (keys == null || keys.length == 0) {
      throw new IllegalArgumentException("serverStaticKeys must hold at least one key, got "
          + (keys == null ? "null" : "none"));
    }
    for (int i = 0; i < keys.length; i++) {
      if (keys[i] == null) {
        throw new IllegalArgumentException("serverStaticKeys[" + i + "] is null");
      }
      for (int j = 0; j < i; j++) {
        if (keys[j].keyId() == keys[i].keyId()) {
          throw new IllegalArgumentException("serverStaticKeys has key id " + keys[i].keyId()
              + " twice");
        }
      }
    }
    return Collections.unmodifiableList(Arrays.asList(keys.clone()));
  }

  /** Whether this configuration draws from the cryptographic default source. */
  public boolean usesSecureRandom() {
    return random == SECURE_RANDOM;
  }

  /** The server's address validation (Retry policy, handshake bound, tokens). */
  public AddressValidation addressValidation() {
    return addressValidation;
  }

  /**
   * This configuration with the client's address-validation token {@code token} (null: none),
   * as {@link Builder#addressToken} sets it: the provider passes each connection the newest
   * token its session store holds.
   */
  public ConnectionConfig withAddressToken(byte[] token) {
    ConnectionConfig c = new ConnectionConfig(this, random, pinnedServerKeys, serverStaticKeys,
        mutant);
    c.addressToken = token == null ? null : token.clone();
    return c;
  }

  /** This configuration with the server's address validation {@code validation}. */
  public ConnectionConfig withAddressValidation(AddressValidation validation) {
    if (validation == null) {
      throw new IllegalArgumentException("addressValidation must not be null");
    }
    ConnectionConfig c = new ConnectionConfig(this, random, pinnedServerKeys, serverStaticKeys,
        mutant);
    c.addressValidation = validation;
    return c;
  }

  /** A builder with the defaults of docs/protocol.md. */
  public static Builder builder() {
    return new Builder();
  }

  /** The default configuration. */
  public static ConnectionConfig defaults() {
    return builder().build();
  }

  /** The wire versions, most preferred first (a copy). */
  public int[] versions() {
    return versions.clone();
  }

  /** The stream limits. */
  public StreamLimits limits() {
    return limits;
  }

  /**
   * How long after the first handshake datagram its copy leaves, ms, or -1 if no copy is sent
   * (docs/protocol.md §4.1).
   */
  public long handshakeCopyDelayMs() {
    return handshakeCopyDelayNs < 0 ? -1 : handshakeCopyDelayNs / 1_000_000L;
  }

  /** How late the driver's timers may fire, ns (0: on time). */
  public long timerPrecisionNs() {
    return timerPrecisionNs;
  }

  /** The max_ack_delay this side advertises, ms (RFC 9000 §18.2). */
  public long maxAckDelayMs() {
    return maxAckDelayMs;
  }

  /** The datagram size used, bytes. */
  public int maxDatagramBytes() {
    return maxDatagramBytes;
  }

  /** The idle timeout this side advertises (max_idle_timeout), ms; 0: none. */
  public long idleTimeoutMs() {
    return idleTimeoutMs;
  }

  /** The keep-alive interval, ms; 0: no keep-alive. */
  public long keepAliveMs() {
    return keepAliveMs;
  }

  /** See {@link Builder#deadAfterProbeTimeouts}. */
  public int deadAfterProbeTimeouts() {
    return deadAfterProbeTimeouts;
  }

  /** See {@link Builder#minDeadSilenceMs}. */
  public long minDeadSilenceMs() {
    return minDeadSilenceMs;
  }

  /** How long a keep-alive PING may go unanswered, ms; 0: the idle timeout decides. */
  public long keepAliveTimeoutMs() {
    return keepAliveTimeoutMs;
  }

  /** Builds {@link ConnectionConfig}s; every setter checks its argument. */
  public static final class Builder {
    private int[] versions = {Versions.V2};
    private long[] rpcVersions = {1};
    private StreamLimits limits = StreamLimits.defaults();
    private long idleTimeoutMs = 30_000;
    private long maxAckDelayMs = 25;
    private int maxDatagramBytes = 1350;
    private CongestionControl congestionControl = CongestionControllers.defaultAlgorithm();
    private boolean priorityScheduling = true;
    private int maxProbedDatagramBytes = 1472;
    private long keepAliveMs = 15_000;
    private long keepAliveTimeoutMs;
    private int deadAfterProbeTimeouts = 3;
    private long minDeadSilenceMs = 15_000;
    private boolean wantReceiveTimestamps;
    private int serverId;
    private int configRotation;
    private boolean handshakeCopy = true;
    private long handshakeCopyDelayMs = 5;
    private boolean firstDataCopy = true;
    private long timerPrecisionNs;
    private CryptoProvider cryptoProvider;
    private AeadAlgorithm handshakeCipher = AeadAlgorithm.AES_256_GCM;
    private List<PinnedServerKey> pinnedServerKeys = Collections.emptyList();
    private List<ServerStaticKey> serverStaticKeys = Collections.emptyList();
    private byte[] clientStaticKey;
    private Predicate<byte[]> clientAllowed;
    private TicketStore ticketStore;
    private long maxEarlyDataBytes = 16_384;
    private LongSupplier wallClock = System::currentTimeMillis;
    private SessionTicket resumptionTicket;
    private byte[] addressToken;
    private AddressValidation addressValidation = AddressValidation.defaults();

    private Builder() {}

    /**
     * A server's limit on the stream data a resumed client may send in 0-RTT, stated in each
     * ticket (docs/protocol.md §9.10); at most the connection's receive window. 0 issues tickets
     * that allow no early data. Default 16,384 bytes.
     */
    public Builder maxEarlyDataBytes(long bytes) {
      if (bytes < 0) {
        throw new IllegalArgumentException("maxEarlyDataBytes must be >= 0, got " + bytes);
      }
      this.maxEarlyDataBytes = bytes;
      return this;
    }

    /**
     * A client's address-validation token from the server's NEW_TOKEN frame of an earlier
     * connection ({@link ConnectionListener#onNewToken}), sent in the Token field of its first
     * INITIAL (RFC 9000 §8.1.3): a server that reads it skips the anti-amplification limit.
     *
     * @param token the token, or null for none (the default)
     * @throws IllegalArgumentException if the token is empty or longer than any server issues
     */
    public Builder addressToken(byte[] token) {
      if (token != null && (token.length == 0 || token.length > AddressTokens.MAX_TOKEN_BYTES)) {
        throw new IllegalArgumentException("addressToken must be 1.."
            + AddressTokens.MAX_TOKEN_BYTES + " bytes: " + token.length);
      }
      this.addressToken = token == null ? null : token.clone();
      return this;
    }

    /**
     * The wall clock, in ms, that times tickets (their receipt and the age a resuming client
     * states, RFC 8446 §4.2.11). Default {@link System#currentTimeMillis}; the simulator passes
     * its own.
     */
    public Builder wallClock(LongSupplier clock) {
      if (clock == null) {
        throw new IllegalArgumentException("wallClock must not be null");
      }
      this.wallClock = clock;
      return this;
    }

    /** A client's ticket to resume with (see {@link ConnectionConfig#withResumption}). */
    public Builder resumeWith(SessionTicket ticket) {
      this.resumptionTicket = ticket;
      return this;
    }

    /**
     * A server's Retry policy, bound on handshakes in progress and token lifetimes
     * ({@link AddressValidation#defaults()} unless set).
     */
    public Builder addressValidation(AddressValidation validation) {
      if (validation == null) {
        throw new IllegalArgumentException("addressValidation must not be null");
      }
      this.addressValidation = validation;
      return this;
    }

    /**
     * A client's own X25519 private key (32 bytes), which the handshake proves to the server
     * (Noise IK's {@code s} and {@code ss}, docs/udp-crypto.md §5.2): its identity to a server
     * that admits only known clients. Without one the client is anonymous, with a fresh key per
     * connection. The same key for several servers lets them link the connections: use one key
     * per server where that matters.
     *
     * @param privateKey the key, or null for an anonymous client (the default)
     * @throws IllegalArgumentException if the key is not 32 bytes
     */
    public Builder clientStaticKey(byte[] privateKey) {
      if (privateKey != null && privateKey.length != 32) {
        throw new IllegalArgumentException("clientStaticKey must be a 32-byte X25519 private"
            + " key, got " + privateKey.length + " bytes");
      }
      this.clientStaticKey = privateKey == null ? null : privateKey.clone();
      return this;
    }

    /**
     * A server's admission decision on the static public key a client proved in the handshake:
     * a client it refuses gets CRYPTO_ERROR with the reason "this server does not admit the
     * client's static key" before any stream opens (docs/udp-crypto.md §5.2). The predicate
     * runs on the endpoint's thread, once per handshake; keep it fast. An anonymous client's
     * key is random, so a predicate that admits only listed keys refuses anonymous clients.
     *
     * @param allowed the decision (it sees a copy of the key), or null to admit every client
     *     (the default)
     */
    public Builder clientAllowed(Predicate<byte[]> allowed) {
      this.clientAllowed = allowed;
      return this;
    }

    /**
     * A server's resumption tickets: it issues them on finished connections and finds them when a
     * client resumes (docs/udp-crypto.md §5.2). Null (the default) issues none and refuses every
     * resumption.
     */
    public Builder ticketStore(TicketStore store) {
      this.ticketStore = store;
      return this;
    }

    /**
     * Admits only clients proving one of {@code publicKeys} (32-byte X25519 public keys): {@link
     * #clientAllowed} with a constant-time comparison against each.
     *
     * @throws IllegalArgumentException if the list is empty or a key is not 32 bytes
     */
    public Builder allowedClientKeys(List<byte[]> publicKeys) {
      if (publicKeys == null || publicKeys.isEmpty()) {
        throw new IllegalArgumentException("allowedClientKeys must name at least one key, got "
            + (publicKeys == null ? "null" : "none"));
      }
      byte[][] keys = new byte[publicKeys.size()][];
      for (int i = 0; i < keys.length; i++) {
        byte[] k = publicKeys.get(i);
        if (k == null || k.length != 32) {
          throw new IllegalArgumentException("allowedClientKeys[" + i + "] must be a 32-byte"
              + " X25519 public key, got " + (k == null ? "null" : k.length + " bytes"));
        }
        keys[i] = k.clone();
      }
      this.clientAllowed = key -> {
        boolean found = false;
        for (byte[] k : keys) {
          found |= MessageDigest.isEqual(k, key); // no early exit: the time names no key
        }
        return found;
      };
      return this;
    }

    /**
     * A client's trusted server static keys, most preferred first (during a rotation: the new key
     * and the old one). A client needs at least one: the handshake (Noise IK) encrypts its first
     * message to the server's static key, which must be known in advance, never learned from a
     * plaintext advertisement (docs/udp-crypto.md §5.1).
     */
    public Builder pinnedServerKeys(PinnedServerKey... keys) {
      this.pinnedServerKeys = checkedPins(keys);
      return this;
    }

    /**
     * A server's static keys, each under its own id: its current key and, during a rotation, the
     * next or previous one (docs/udp-crypto.md §5.2). A server needs at least one.
     */
    public Builder serverStaticKeys(ServerStaticKey... keys) {
      this.serverStaticKeys = checkedStaticKeys(keys);
      return this;
    }

    /**
     * The crypto provider ({@code CryptoProviders.byName("jdk" | "bc" | "auto")}); default: the
     * JDK's where it has every primitive, else BouncyCastle's.
     */
    public Builder cryptoProvider(CryptoProvider provider) {
      if (provider == null || !provider.isAvailable()) {
        throw new IllegalArgumentException("cryptoProvider must be an available provider, got "
            + (provider == null ? "null" : provider.name() + " (" + provider.unavailableReason()
                + ")"));
      }
      this.cryptoProvider = provider;
      return this;
    }

    /**
     * The AEAD a client proposes for the handshake and the 1-RTT packets: AES-256-GCM (default)
     * or ChaCha20-Poly1305 (faster without AES instructions, as on older phones).
     */
    public Builder handshakeCipher(AeadAlgorithm cipher) {
      if (cipher != AeadAlgorithm.AES_256_GCM && cipher != AeadAlgorithm.CHACHA20_POLY1305) {
        throw new IllegalArgumentException("handshakeCipher must be AES_256_GCM or"
            + " CHACHA20_POLY1305, got " + cipher);
      }
      this.handshakeCipher = cipher;
      return this;
    }

    /** Wire versions, most preferred first; at least one, none zero. */
    public Builder versions(int... v) {
      if (v == null || v.length == 0) {
        throw new IllegalArgumentException("versions must not be empty");
      }
      for (int x : v) {
        if (x == Versions.NEGOTIATION) {
          throw new IllegalArgumentException("version 0 is reserved for negotiation");
        }
      }
      this.versions = v.clone();
      return this;
    }

    /** Tern RPC protocol versions this side speaks (sent in tern_rpc_versions). */
    public Builder rpcVersions(long... v) {
      if (v == null) {
        throw new IllegalArgumentException("rpcVersions must not be null");
      }
      this.rpcVersions = v.clone();
      return this;
    }

    /** Flow-control windows, stream limit and send buffer. */
    public Builder limits(StreamLimits l) {
      if (l == null) {
        throw new IllegalArgumentException("limits must not be null");
      }
      this.limits = l;
      return this;
    }

    /**
     * Dead-peer detection: once an established connection has had this many consecutive probe
     * timeouts (RFC 9002 §6.2, each doubling the last) with no packet from the peer, it is
     * discarded as {@code PEER_UNRESPONSIVE}, long before the idle timeout (RFC 9000 §10.1) would
     * notice a peer that crashed or restarted. 3 by default; 0 turns it off.
     */
    public Builder deadAfterProbeTimeouts(int count) {
      if (count < 0) {
        throw new IllegalArgumentException("deadAfterProbeTimeouts must be >= 0: " + count);
      }
      this.deadAfterProbeTimeouts = count;
      return this;
    }

    /**
     * The least silence, in ms, that {@link #deadAfterProbeTimeouts} may declare dead while
     * streams are open (15 s by default, half the idle timeout): mobile links lose their uplink
     * for seconds (the simulator's lte-att trace: feedback outages up to 2 s; retransmission
     * waits in the field have a 30 s tail), and a client behind a NAT that rebinds every second
     * on a bufferbloated link went 7.7 s without hearing its server in the campaign, all of which
     * calls in flight must ride out; on loopback three probe timeouts pass in under 0.2 s, less
     * than a loaded host may take to schedule a busy peer. A restarted server is told sooner by
     * its stateless reset (RFC 9000 §10.3), and one that is down by ICMP where the socket reports
     * it; this floor is for a peer gone without a trace. A connection with no stream open that {@link Connection#checkPeer
     * checks its peer} waits {@link Connection#CHECK_MIN_SILENCE_MS} at least instead: no call is
     * lost if it is wrong.
     */
    public Builder minDeadSilenceMs(long ms) {
      if (ms < 0) {
        throw new IllegalArgumentException("minDeadSilenceMs must be >= 0: " + ms);
      }
      this.minDeadSilenceMs = ms;
      return this;
    }

    /** Idle timeout in ms; 0 disables it. */
    public Builder idleTimeoutMs(long ms) {
      if (ms < 0) {
        throw new IllegalArgumentException("idleTimeoutMs must be >= 0: " + ms);
      }
      this.idleTimeoutMs = ms;
      return this;
    }

    /** Our max_ack_delay in ms (1..16383). */
    public Builder maxAckDelayMs(long ms) {
      if (ms < 1 || ms >= 1 << 14) {
        throw new IllegalArgumentException("maxAckDelayMs must be in 1..16383: " + ms);
      }
      this.maxAckDelayMs = ms;
      return this;
    }

    /** Datagram size in bytes (1200..1500). */
    public Builder maxDatagramBytes(int bytes) {
      if (bytes < 1200 || bytes > 1500) {
        throw new IllegalArgumentException("maxDatagramBytes must be in 1200..1500: " + bytes);
      }
      this.maxDatagramBytes = bytes;
      return this;
    }

    /**
     * Whether stream data is sent by priority (urgency, then incremental round robin or FIFO,
     * with a connection-credit reserve for urgent calls); if not, streams take plain turns.
     */
    public Builder priorityScheduling(boolean enabled) {
      this.priorityScheduling = enabled;
      return this;
    }

    /**
     * The largest datagram PMTU discovery (RFC 8899) may probe for, bytes of UDP payload: 1472
     * (IPv4 over a 1500-byte MTU) by default; at or below {@link #maxDatagramBytes} no probing.
     */
    public Builder maxProbedDatagramBytes(int bytes) {
      if (bytes < 1200 || bytes > 1500) {
        throw new IllegalArgumentException("maxProbedDatagramBytes must be in 1200..1500: " + bytes);
      }
      this.maxProbedDatagramBytes = bytes;
      return this;
    }

    /**
     * Keep-alive: a PING after this long without traffic while streams are open or the
     * application asked to stay connected (FIELD-NOTES: NAT bindings time out after 15-30 s);
     * 0 disables it. Default 15 s; never more than half the idle timeout in force.
     */
    public Builder keepAliveMs(long ms) {
      if (ms < 0) {
        throw new IllegalArgumentException("keepAliveMs must be >= 0: " + ms);
      }
      this.keepAliveMs = ms;
      return this;
    }

    /**
     * How long a keep-alive PING may go without any packet from the peer before the connection
     * is given up for dead ({@code TransportError.KEEP_ALIVE_TIMEOUT}), ms; 0 (the default): no
     * such limit, the idle timeout decides.
     */
    public Builder keepAliveTimeoutMs(long ms) {
      if (ms < 0) {
        throw new IllegalArgumentException("keepAliveTimeoutMs must be >= 0: " + ms);
      }
      this.keepAliveTimeoutMs = ms;
      return this;
    }

    /** The congestion controller. */
    public Builder congestionControl(CongestionControl cc) {
      if (cc == null) {
        throw new IllegalArgumentException("congestionControl must not be null");
      }
      this.congestionControl = cc;
      return this;
    }

    /** Whether to ask the peer for ACK_RECEIVE_TIMESTAMPS. */
    public Builder wantReceiveTimestamps(boolean want) {
      this.wantReceiveTimestamps = want;
      return this;
    }

    /** A server's id (0..65535) and config rotation (0..6) for its connection IDs. */
    public Builder serverId(int id, int rotation) {
      if (id < 0 || id > 0xffff || rotation < 0 || rotation > 6) {
        throw new IllegalArgumentException("serverId 0..65535 and rotation 0..6: " + id + ", "
            + rotation);
      }
      this.serverId = id;
      this.configRotation = rotation;
      return this;
    }

    /**
     * Whether the first handshake datagram (the client's INITIAL, the server's answer) is sent
     * twice, the copy {@link #handshakeCopyDelayMs} later (docs/protocol.md §4.1): 1,200 bytes
     * more per side and connection, so that one lost handshake datagram does not cost the
     * 999 ms first probe timeout. On by default.
     */
    public Builder handshakeCopy(boolean enabled) {
      this.handshakeCopy = enabled;
      return this;
    }

    /**
     * Whether the first 1-RTT datagram carrying stream data (a connection's first request or
     * response) is also sent twice, {@link #handshakeCopyDelayMs} apart (docs/protocol.md §4.1):
     * at most one datagram more per side and connection, so that a lost first request or
     * response does not wait for a probe timed from the handshake's single RTT sample. Only with
     * {@link #handshakeCopy}; on by default.
     */
    public Builder firstDataCopy(boolean enabled) {
      this.firstDataCopy = enabled;
      return this;
    }

    /**
     * How long after the original the handshake datagram's copy leaves, ms (0..1000; default
     * 5): long enough that a short loss burst does not take both, short enough to cost the
     * handshake little when the original is lost.
     */
    public Builder handshakeCopyDelayMs(long ms) {
      if (ms < 0 || ms > 1000) {
        throw new IllegalArgumentException("handshakeCopyDelayMs must be in 0..1000: " + ms);
      }
      this.handshakeCopyDelayMs = ms;
      return this;
    }

    /**
     * How late the driver's timers may fire, ns (0..1,000,000; default 0, timers on time as in
     * the simulator). The NIO driver sleeps in {@code Selector.select(long)}, which counts
     * milliseconds, and sets 1 ms: the pacer then lets credit earned without waiting on it
     * reach a millisecond at its rate, which a late timer would release anyway.
     */
    public Builder timerPrecisionNs(long ns) {
      if (ns < 0 || ns > 1_000_000L) {
        throw new IllegalArgumentException("timerPrecisionNs must be in 0..1000000: " + ns);
      }
      this.timerPrecisionNs = ns;
      return this;
    }

    /** The configuration. */
    public ConnectionConfig build() {
      return new ConnectionConfig(this);
    }
  }
}
