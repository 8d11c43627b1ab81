package dev.tern.transport.quic;

import dev.tern.rpc.spi.ThrottledLog;
import dev.tern.rpc.spi.TransportEvents;
import dev.tern.rpc.spi.TransportOptions;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.quic.QuicTokenHandler;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * Decides, for each Initial packet that would start a new QUIC connection, whether the server
 * makes the connection, answers with a Retry (RFC 9000 §8.1.2), or refuses it; and keeps the
 * counts those decisions rest on: half-open connections in total and per client IP address, and
 * connections in all.
 *
 * <p>Netty's QUIC codec asks its {@link QuicTokenHandler} about every such packet before it makes
 * any state, which is why the decisions live here: a token-less Initial is answered with a Retry
 * (stateless) when handshakes are many (over {@link QuicTransportOptions#RETRY_ABOVE_HANDSHAKES}),
 * or when a limit is reached; an Initial whose token proves the client's address makes a
 * connection unless a limit is reached, in which case the connection is made only to be closed at
 * once with {@code CONNECTION_REFUSED} (RFC 9000 §20.1), so that the client learns it at once
 * instead of waiting out its handshake timeout. A forged or expired token is dropped (RFC 9000
 * §8.1.2 lets the server discard it; the client then times out). Each outcome is counted and
 * logged at FINE, throttled, and reported to the server's {@link TransportEvents}: a Retry as
 * {@link TransportEvents#retrySent}, a refusal as {@link TransportEvents#CONNECTION_LIMIT} when the
 * server holds its most connections, else as {@link TransportEvents#HANDSHAKE_LIMIT} (in total or
 * from the client's address), a dropped token as {@link TransportEvents#INVALID_TOKEN}. A client's
 * Initial may span two datagrams; when the second makes a connection of its own because the first
 * one's was already closed, that client is refused twice but reported once (the same token from
 * the same address as the refusal before).
 *
 * <p>Confined to the server's one event loop, as Netty calls the token handler and every
 * connection's handlers there.
 */
final class HandshakeAdmission implements QuicTokenHandler {
  /** RFC 9000 §20.1: the server refuses to accept a new connection. */
  static final int CONNECTION_REFUSED = 0x2;
  private static final Logger LOG = Logger.getLogger("dev.tern.transport.quic");

  private final RetryTokens tokens;
  private final TransportEvents events;
  private final int retryAbove;
  private final int maxHandshakes;
  private final int maxHandshakesPerAddress;
  private final int maxConnections;
  private final Map<InetAddress, PerAddress> perAddress = new HashMap<>();
  private int handshakes;
  private int connections;
  private int peakHandshakes;
  private int peakConnections;
  /** Initial packets that would have started a connection, counted as the token handler saw them. */
  private long initials;
  /** The last refused Initial's token (its content hash) and address: a repeat is not reported again. */
  private int lastRefusedToken;
  private InetSocketAddress lastRefusedFrom;
  /** What the last token decision said about the connection Netty is about to make; null if none. */
  private Pending pending;

  final ThrottledLog retries = new ThrottledLog(LOG, "quic: Retry sent", ThrottledLog.DEFAULT_INTERVAL_NANOS);
  final ThrottledLog refused = new ThrottledLog(LOG, "quic: connection refused (limit reached)",
      ThrottledLog.DEFAULT_INTERVAL_NANOS);
  final ThrottledLog badTokens = new ThrottledLog(LOG, "quic: Initial with an invalid or expired token dropped",
      ThrottledLog.DEFAULT_INTERVAL_NANOS);

  HandshakeAdmission(TransportOptions o) {
    this.tokens = new RetryTokens(o.get(QuicTransportOptions.RETRY_TOKEN_LIFETIME_MILLIS));
    this.events = o.get(TransportOptions.EVENTS);
    int above = atLeast(0, "quic.retryAboveHandshakes", o.get(QuicTransportOptions.RETRY_ABOVE_HANDSHAKES));
    this.maxHandshakes = atLeast(1, "quic.maxHandshakes", o.get(QuicTransportOptions.MAX_HANDSHAKES));
    // At least half the handshake slots stay for clients whose address a Retry has proved: if
    // unproved handshakes could fill them all, a flood of forged ClientHellos would lock out every
    // client that followed the Retry.
    this.retryAbove = Math.min(above, maxHandshakes / 2);
    this.maxHandshakesPerAddress = atLeast(1, "quic.maxHandshakesPerAddress",
        o.get(QuicTransportOptions.MAX_HANDSHAKES_PER_ADDRESS));
    int max = atLeast(0, "maxConnections", o.get(TransportOptions.MAX_CONNECTIONS));
    this.maxConnections = max == 0 ? Integer.MAX_VALUE : max;
  }

  private static int atLeast(int min, String name, int value) {
    if (value < min) {
      throw new IllegalArgumentException(name + " must be >= " + min + ", was " + value);
    }
    return value;
  }

  private static long nowSeconds() {
    return TimeUnit.MILLISECONDS.toSeconds(System.currentTimeMillis());
  }

  // --- QuicTokenHandler: Netty's questions -------------------------------------------------------

  /** A token-less Initial: true sends a Retry carrying the token written to {@code out}. */
  @Override
  public boolean writeToken(ByteBuf out, ByteBuf dcid, InetSocketAddress address) {
    pending = null;
    initials++;
    PerAddress a = perAddress.get(address.getAddress());
    int fromAddress = a == null ? 0 : a.validated + a.unvalidated;
    boolean retry = handshakes >= retryAbove || handshakes >= maxHandshakes
        || fromAddress >= maxHandshakesPerAddress || connections >= maxConnections;
    if (retry && tokens.mint(out, dcid, address, nowSeconds())) {
      retries.event();
      events.retrySent();
      return true;
    }
    pending = new Pending(address, false, null, false);
    return false;
  }

  @Override
  public int validateToken(ByteBuf token, InetSocketAddress address) {
    pending = null;
    initials++;
    int offset = tokens.validate(token, address, nowSeconds());
    if (offset < 0) {
      badTokens.event(badTokens.wouldLog() ? "from " + address : null);
      events.refused(TransportEvents.INVALID_TOKEN);
      return -1;
    }
    PerAddress a = perAddress.get(address.getAddress());
    String refusal = connections >= maxConnections ? TransportEvents.CONNECTION_LIMIT
        : handshakes >= maxHandshakes || (a != null && a.validated >= maxHandshakesPerAddress)
            ? TransportEvents.HANDSHAKE_LIMIT : null;
    boolean repeat = false;
    if (refusal != null) {
      int hash = token.hashCode(); // of the readable bytes, which validate left in place
      repeat = hash == lastRefusedToken && address.equals(lastRefusedFrom);
      lastRefusedToken = hash;
      lastRefusedFrom = address;
    }
    pending = new Pending(address, true, refusal, repeat);
    return offset;
  }

  @Override
  public int maxTokenLength() {
    return RetryTokens.maxTokenLength();
  }

  // --- The server's side -------------------------------------------------------------------------

  /**
   * Netty made a connection after the last token decision: whether to refuse it, and if not, it
   * now counts as half-open (call {@link #established} and {@link #closed} later).
   *
   * @return the admitted connection's record, or null if it must be refused (closed at once)
   */
  Pending admit() {
    Pending p = pending;
    pending = null;
    if (p == null) {
      // Not announced by a token decision (cannot happen with Netty's server codec): count it anyway.
      p = new Pending(null, false, null, false);
    }
    if (p.refusal != null) {
      refused.event(refused.wouldLog() ? "from " + p.address + " (" + handshakes + " handshakes, "
          + connections + " connections)" : null);
      if (!p.repeat) {
        events.refused(p.refusal);
      }
      return null;
    }
    handshakes++;
    connections++;
    peakHandshakes = Math.max(peakHandshakes, handshakes);
    peakConnections = Math.max(peakConnections, connections);
    if (p.address != null) {
      PerAddress a = perAddress.computeIfAbsent(p.address.getAddress(), k -> new PerAddress());
      if (p.validated) {
        a.validated++;
      } else {
        a.unvalidated++;
      }
    }
    return p;
  }

  /** An admitted connection's handshake is done: it no longer counts as half-open. */
  void established(Pending p) {
    if (!p.handshakeDone) {
      handshakeEnded(p);
    }
  }

  /** An admitted connection closed, established or not. */
  void closed(Pending p) {
    if (!p.handshakeDone) {
      handshakeEnded(p);
    }
    connections--;
  }

  private void handshakeEnded(Pending p) {
    p.handshakeDone = true;
    handshakes--;
    if (p.address != null) {
      InetAddress ip = p.address.getAddress();
      PerAddress a = perAddress.get(ip);
      if (a != null) {
        if (p.validated) {
          a.validated--;
        } else {
          a.unvalidated--;
        }
        if (a.validated + a.unvalidated <= 0) {
          perAddress.remove(ip);
        }
      }
    }
  }

  /** Half-open connections now. */
  int handshakes() { return handshakes; }

  /** Connections now, half-open and established. */
  int connections() { return connections; }

  /** The most half-open connections there ever were at once. */
  int peakHandshakes() { return peakHandshakes; }

  /** The most connections there ever were at once. */
  int peakConnections() { return peakConnections; }

  /** Initial packets seen that would start a connection (with or without a token). */
  long initials() { return initials; }

  /** Client addresses with a half-open connection now. */
  int addressesInHandshake() { return perAddress.size(); }

  /** What a token decision said about the connection Netty is about to make. */
  static final class Pending {
    final InetSocketAddress address;
    final boolean validated;
    /** Why the connection must be refused (a {@link TransportEvents} reason); null to admit it. */
    final String refusal;
    /** A refusal of the same client attempt as the refusal before: not reported again. */
    final boolean repeat;
    /** Set once {@link #handshakeEnded} was called for it. */
    boolean handshakeDone;

    Pending(InetSocketAddress address, boolean validated, String refusal, boolean repeat) {
      this.address = address;
      this.validated = validated;
      this.refusal = refusal;
      this.repeat = repeat;
    }
  }

  private static final class PerAddress {
    int validated;
    int unvalidated;
  }
}
