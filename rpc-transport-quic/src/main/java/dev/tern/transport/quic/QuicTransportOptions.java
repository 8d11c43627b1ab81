package dev.tern.transport.quic;

import dev.tern.rpc.spi.DatagramImpairment;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.rpc.spi.TransportOptions.Key;

/**
 * QUIC-specific {@link TransportOptions} keys: the quiche knobs Netty's QUIC codec exposes.
 *
 * <p>The common keys also apply: {@link TransportOptions#FLOW_CONTROL_WINDOW} sets each stream's
 * initial window, {@link TransportOptions#MAX_CONCURRENT_STREAMS} the peer's bidirectional stream
 * limit, {@link TransportOptions#MAX_INBOUND_METADATA_SIZE} the HTTP/3 {@code
 * SETTINGS_MAX_FIELD_SECTION_SIZE}, {@link TransportOptions#HANDSHAKE_TIMEOUT_MILLIS} the time a
 * client waits for its connection, {@link TransportOptions#PROTOCOL_VERSIONS} the Tern versions
 * carried in the HTTP/3 SETTINGS exchange.
 */
public final class QuicTransportOptions {

  /** Congestion controllers quiche offers. */
  public enum CongestionControl {
    /** NewReno (RFC 9002 §7). */
    RENO,
    /** CUBIC (RFC 9438), quiche's default. */
    CUBIC,
    /** BBR (model-based; tolerant of random loss). */
    BBR
  }

  /** The congestion controller of each connection (default CUBIC). */
  public static final Key<CongestionControl> CONGESTION_CONTROL =
      new Key<>("quic.congestionControl", CongestionControl.CUBIC);

  /** Initial congestion window in packets (default 10, RFC 9002 §7.2). */
  public static final Key<Integer> INITIAL_CONGESTION_WINDOW_PACKETS =
      new Key<>("quic.initialCongestionWindowPackets", 10);

  /** Whether HyStart++ (RFC 9406) ends slow start early (default true). */
  public static final Key<Boolean> HYSTART = new Key<>("quic.hystart", true);

  /** Connection-level flow-control window, {@code initial_max_data} (default 16 MiB). */
  public static final Key<Long> INITIAL_MAX_DATA = new Key<>("quic.initialMaxData", 16L * 1024 * 1024);

  /**
   * Idle timeout, {@code max_idle_timeout} in milliseconds (default 60 s): a connection that hears
   * nothing for this long is closed (RFC 9000 §10.1). 0 disables it.
   */
  public static final Key<Long> MAX_IDLE_TIMEOUT_MILLIS = new Key<>("quic.maxIdleTimeoutMillis", 60_000L);

  /**
   * Largest UDP payload sent (default 1350 bytes, which reaches almost every mobile client); never
   * below 1200 (RFC 9000 §14).
   */
  public static final Key<Integer> MAX_UDP_PAYLOAD_SIZE = new Key<>("quic.maxUdpPayloadSize", 1350);

  /** Whether quiche probes for a larger path MTU (DPLPMTUD, RFC 8899; default false). */
  public static final Key<Boolean> DISCOVER_PMTU = new Key<>("quic.discoverPmtu", false);

  /** Whether the peer may migrate the connection to a new address (default true). */
  public static final Key<Boolean> ACTIVE_MIGRATION = new Key<>("quic.activeMigration", true);

  /** {@code max_ack_delay} in milliseconds (default 25, RFC 9000 §18.2). */
  public static final Key<Long> MAX_ACK_DELAY_MILLIS = new Key<>("quic.maxAckDelayMillis", 25L);

  /** Whether to send GREASE values (RFC 9287 and friends; default true). */
  public static final Key<Boolean> GREASE = new Key<>("quic.grease", true);

  /**
   * Whether TLS 1.3 0-RTT is enabled (default true). On a client, calls allowed early data go out
   * in the first flight of a resumed connection; on a server, early data is accepted.
   */
  public static final Key<Boolean> EARLY_DATA = new Key<>("quic.earlyData", true);

  /**
   * How often a server probes a call whose response is not finished, in milliseconds (default
   * 1000; 0 turns probing off). A cancelling client resets its stream and sends STOP_SENDING, but
   * Netty reports a reset only when the server reads and STOP_SENDING only when it writes; a call
   * that has stopped reading (nothing requested) or whose request already ended would never hear of
   * it. The probe asks quiche for the stream's state; where Netty's internals are out of reach it
   * writes an empty frame of a reserved HTTP/3 type (RFC 9114 §7.2.8) instead, which peers ignore,
   * and a failed write tells the server the call was cancelled.
   */
  public static final Key<Long> CANCEL_PROBE_MILLIS = new Key<>("quic.cancelProbeMillis", 1000L);

  /**
   * Server: half-open connections (handshake begun, not finished) above which a client's first
   * Initial packet is answered with a Retry (RFC 9000 §8.1.2) and the connection is made only once
   * the client has echoed the token, proving it receives at its address; 100 by default. 0: always
   * Retry, at the cost of one round trip on every new connection. Below it, handshakes cost no
   * extra round trip; the 3x anti-amplification limit (RFC 9000 §8.1) still holds for those.
   * Initial packets over {@link #MAX_HANDSHAKES}, {@link #MAX_HANDSHAKES_PER_ADDRESS} or {@code
   * maxConnections} are always answered with a Retry, which costs the server no state.
   */
  public static final Key<Integer> RETRY_ABOVE_HANDSHAKES = new Key<>("quic.retryAboveHandshakes", 100);

  /**
   * Server: most half-open connections at once (1,000 by default). Each holds a TLS handshake and
   * quiche's connection state (tens of KiB) until it completes or the handshake timeout closes it;
   * past the limit a client whose address a Retry token has proved is refused with {@code
   * CONNECTION_REFUSED} (RFC 9000 §20.1), and one without a token gets a Retry.
   */
  public static final Key<Integer> MAX_HANDSHAKES = new Key<>("quic.maxHandshakes", 1000);

  /**
   * Server: most half-open connections at once from one client IP address (100 by default). A
   * Retry-proved address over it is refused with {@code CONNECTION_REFUSED}; an unproved one gets
   * a Retry, so that a sender forging a victim's address cannot use up the victim's share. It
   * bounds handshakes only: established connections have no limit per address (phones share
   * carrier NAT addresses).
   */
  public static final Key<Integer> MAX_HANDSHAKES_PER_ADDRESS = new Key<>("quic.maxHandshakesPerAddress", 100);

  /**
   * Server: how long a Retry token stays valid, in milliseconds (10 s by default). A client sends
   * it back one round trip after receiving it (RFC 9000 §8.1.2), so a short life suffices and
   * limits the replay of a captured token.
   */
  public static final Key<Long> RETRY_TOKEN_LIFETIME_MILLIS = new Key<>("quic.retryTokenLifetimeMillis", 10_000L);

  /**
   * A directory for event logs: quiche writes each connection's qlog there (through Netty's
   * {@code QuicChannelOption.QLOG}), one file per connection named by its trace id and channel,
   * which qvis reads. Created if missing. Default null: no log. For looking at a run, not for
   * production: a busy connection writes megabytes a minute.
   */
  public static final Key<java.nio.file.Path> QLOG_DIR = new Key<>("quic.qlogDir", null);

  /**
   * For tests only: impair this side's datagrams (drop, duplicate, reorder) with a seeded random
   * generator; null (the default) sends and receives unimpaired.
   */
  public static final Key<DatagramImpairment> IMPAIRMENT = new Key<>("quic.testImpairment", null);

  /** Every key above, for {@link QuicTransportProvider#QuicTransportProvider(TransportOptions)}. */
  static final java.util.List<Key<?>> ALL = java.util.List.of(CONGESTION_CONTROL, INITIAL_CONGESTION_WINDOW_PACKETS,
      HYSTART, INITIAL_MAX_DATA, MAX_IDLE_TIMEOUT_MILLIS, MAX_UDP_PAYLOAD_SIZE, DISCOVER_PMTU, ACTIVE_MIGRATION,
      MAX_ACK_DELAY_MILLIS, GREASE, EARLY_DATA, CANCEL_PROBE_MILLIS, RETRY_ABOVE_HANDSHAKES, MAX_HANDSHAKES,
      MAX_HANDSHAKES_PER_ADDRESS, RETRY_TOKEN_LIFETIME_MILLIS, IMPAIRMENT, QLOG_DIR);

  private QuicTransportOptions() {}

  /** {@code options} plus every QUIC key set in {@code defaults} and not in {@code options}. */
  static TransportOptions withDefaults(TransportOptions options, TransportOptions defaults) {
    TransportOptions out = options;
    for (Key<?> key : ALL) {
      out = copyIfUnset(out, defaults, key);
    }
    return out;
  }

  private static <T> TransportOptions copyIfUnset(TransportOptions to, TransportOptions from, Key<T> key) {
    return !to.isSet(key) && from.isSet(key) ? to.with(key, from.get(key)) : to;
  }
}
