package dev.tern.transport.udp.connection;

import dev.tern.transport.udp.crypto.EpochPacketKeys;
import dev.tern.transport.udp.frame.ConnectionCloseFrame;
import dev.tern.transport.udp.frame.SimpleFrames;
import dev.tern.transport.udp.frame.TransportError;
import dev.tern.transport.udp.util.Buffers;
import dev.tern.transport.udp.util.LongObjectMap;
import dev.tern.transport.udp.util.SipHash;
import dev.tern.transport.udp.packet.ConnectionId;
import dev.tern.transport.udp.packet.PacketHeader;
import dev.tern.transport.udp.packet.PacketNumber;
import dev.tern.transport.udp.packet.PacketProtection;
import dev.tern.transport.udp.packet.PacketType;
import dev.tern.transport.udp.packet.PacketWriter;
import dev.tern.transport.udp.packet.PlaintextProtection;
import dev.tern.transport.udp.packet.Versions;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Function;

/**
 * The server side of an endpoint, sans-IO: routes datagrams to connections by destination
 * connection ID (never by address), creates a connection for a client's INITIAL, and answers an
 * INITIAL of an unknown version with Version Negotiation (docs/protocol.md §3), statelessly.
 * Datagrams that fit nothing are dropped and counted.
 *
 * <p>The connection-ID table is keyed by SipHash-2-4 of the whole connection ID under a key drawn
 * per endpoint from the configuration's random source, so a client choosing its Destination
 * Connection IDs cannot make them collide in the table and turn lookups into long probe chains
 * (the table probes linearly). Lookups neither copy the ID nor allocate.
 *
 * <p>An INITIAL that would create a connection must open first (RFC 9001 §5.2: with the Initial
 * keys of its Destination Connection ID), on a copy, so that a corrupt or forged one creates no
 * state and the connection still receives the datagram as it came.
 */
public final class ServerDemux {
  /** Why a datagram was dropped, or a connection refused, before any connection took it. */
  public enum Refusal {
    /**
     * Not a packet of ours: a header that does not parse, an INITIAL in a datagram under 1200
     * bytes (RFC 9000 §14.1) or with a Destination Connection ID under 8 bytes (§7.2), an INITIAL
     * that does not open with the keys of its connection ID (RFC 9001 §5.2, §5.5), or a long
     * header of another version too small or too odd to answer.
     */
    MALFORMED,
    /** A packet for a connection ID this server does not know (one it no longer has, or never had). */
    UNKNOWN_CONNECTION,
    /** An INITIAL that would have opened a connection beyond the server's {@code maxConnections}. */
    CONNECTION_LIMIT,
    /** An INITIAL of a version this server does not speak, answered with Version Negotiation (§3). */
    UNSUPPORTED_VERSION,
    /**
     * An INITIAL refused because the handshakes in progress reached the bound
     * ({@link AddressValidation#maxHandshakes()}): answered with CONNECTION_REFUSED, statelessly.
     */
    HANDSHAKE_LIMIT,
    /**
     * An INITIAL with a Retry token that is expired or names another address (RFC 9000 §8.1.3):
     * answered with INVALID_TOKEN, statelessly.
     */
    INVALID_TOKEN
  }

  /**
   * What the demultiplexer knows of the address behind a path id: the driver's answer, used to
   * bind address-validation tokens to the client's address (RFC 9000 §8.1.3). Called only while
   * {@link #onDatagram} handles a datagram from that path.
   */
  @FunctionalInterface
  public interface PeerAddresses {
    /** Path ids stand for addresses (the simulator's, and the default). */
    PeerAddresses PATH_IDS = (pathId, withPort) -> ByteBuffer.allocate(8).putLong(pathId).array();

    /**
     * The address of {@code pathId} as bytes: the IP address and the port, or the IP address
     * alone ({@code withPort} false).
     */
    byte[] address(long pathId, boolean withPort);
  }

  /**
   * Told of each datagram the demultiplexer drops or answers statelessly instead of handing it to
   * a connection (a driver's metrics). Called on the endpoint's thread; must neither block nor
   * allocate.
   */
  @FunctionalInterface
  public interface RefusalListener {
    /** Hears nothing: the default. */
    RefusalListener NONE = why -> { };

    /**
     * A datagram was dropped or refused.
     *
     * @param why the reason
     */
    void refused(Refusal why);
  }

  private final ConnectionConfig config;
  private final Random random;
  private final Function<Connection, ConnectionListener> listeners;
  private final LongObjectMap<Connection> byCid = new LongObjectMap<>();
  private final SipHash cidHash;
  private final List<Connection> connections = new ArrayList<>();
  private final PacketHeader header = new PacketHeader();
  private final PacketHeader scratchHeader = new PacketHeader();
  private ByteBuffer scratch = ByteBuffer.allocate(2048);
  private final int maxConnections;
  private RefusalListener refusals = RefusalListener.NONE;
  private long dropped;
  private long packetsFailedToOpen;
  private long versionNegotiationsSent;
  /**
   * Tokens and packets of stateless reset (RFC 9000 §10.3), from the server's current static
   * key; null without one (version 1 only, or no key).
   */
  private final StatelessReset resets;
  /** RFC 9000 §10.3: resets are limited, at most this many a second. */
  static final int MAX_RESETS_PER_SECOND = 1000;
  private long resetWindowStartNs;
  private int resetsInWindow;
  private long statelessResetsSent;
  /** The server's Retry policy, handshake bound and token lifetimes. */
  private final AddressValidation validation;
  /** Seals and opens address tokens; null without a static key (version 1 only). */
  private final AddressTokens tokens;
  /** Retry packets and their integrity tags; null with {@link #tokens}. */
  private final RetryPacket retries;
  private PeerAddresses addresses = PeerAddresses.PATH_IDS;
  /** Connections created and not yet confirmed, or closed since (pruned as INITIALs come). */
  private final List<Connection> handshaking = new ArrayList<>();
  private long closeWindowStartNs;
  private int closesInWindow;
  private long retriesSent;
  private long tokensValid;
  private long tokensInvalid;
  private long handshakesRefused;
  private long invalidTokenCloses;
  private long newTokensIssued;
  private static final long NOT_BOUND = Long.MIN_VALUE;
  /** When the driver bound the server's socket ({@link #socketBound}); NOT_BOUND until told. */
  private long boundAtNs = NOT_BOUND;

  /**
   * A demultiplexer.
   *
   * @param config every connection's configuration; its random source also keys the
   *     connection-ID table and fills Version Negotiation's unused bits
   * @param listeners gives each new connection its listener
   * @param maxConnections connections beyond this are refused (their INITIALs dropped)
   */
  public ServerDemux(ConnectionConfig config,
      Function<Connection, ConnectionListener> listeners, int maxConnections) {
    if (maxConnections < 1) {
      throw new IllegalArgumentException("maxConnections must be >= 1: " + maxConnections);
    }
    for (int v : config.versions) {
      if (Versions.isEncrypted(v)) {
        HandshakeCrypto.checkServer(config);
      }
    }
    this.config = config;
    this.random = config.random;
    this.cidHash = new SipHash(random.nextLong(), random.nextLong());
    this.listeners = listeners;
    this.maxConnections = maxConnections;
    boolean encrypted = false;
    for (int v : config.versions) {
      encrypted |= Versions.isEncrypted(v);
    }
    this.resets = encrypted && config.serverStaticKeys != null && !config.serverStaticKeys.isEmpty()
        ? StatelessReset.forServer(config.cryptoProvider, config.serverStaticKeys.get(0).privateKey()) : null;
    this.validation = config.addressValidation;
    this.tokens = resets != null
        ? new AddressTokens(config.cryptoProvider, config.serverStaticKeys, random) : null;
    this.retries = tokens != null ? new RetryPacket(config.cryptoProvider) : null;
  }

  /**
   * Routes one datagram.
   *
   * @param reply receives a stateless reply (Version Negotiation) if one is due; its position is
   *     advanced by the reply's size
   * @return the connection that took the datagram, or null (dropped, or answered in
   *     {@code reply})
   */
  public Connection onDatagram(ByteBuffer datagram, long nowNs, long pathId, ByteBuffer reply) {
    int start = datagram.position();
    if (unknownVersion(datagram, start)) {
      answerUnknownVersion(datagram, start, reply);
      return null;
    }
    if (!header.parse(datagram, start, ConnectionId.V1_LENGTH)) {
      drop(Refusal.MALFORMED);
      return null;
    }
    Connection c = lookup(datagram, header.dcidOffset, header.dcidLength);
    if (c == null && header.type == PacketType.INITIAL && datagram.remaining() >= 1200) {
      if (header.dcidLength < 8) {
        drop(Refusal.MALFORMED); // RFC 9000 §7.2: a client's first DCID has 8 bytes at least
        return null;
      }
      if (connections.size() >= maxConnections) {
        drop(Refusal.CONNECTION_LIMIT);
        return null;
      }
      ConnectionId dcid = ConnectionId.read(datagram, header.dcidOffset, header.dcidLength);
      boolean encrypted = Versions.isEncrypted(header.version);
      PacketProtection keys = encrypted
          ? HandshakeCrypto.initialKeys(config.cryptoProvider, dcid, false)
          : new PlaintextProtection();
      // No state for a packet that does not open (corrupt or forged).
      if (!opens(datagram, keys)) {
        packetsFailedToOpen++;
        drop(Refusal.MALFORMED);
        return null;
      }
      ConnectionId scid = ConnectionId.read(datagram, header.scidOffset, header.scidLength);
      // docs/protocol.md §9.9: accept, retry or refuse; a token may validate the address.
      ConnectionId handshakeDcid = dcid;
      ConnectionId retryScid = null;
      boolean validated = false;
      if (header.tokenLength > 0 && tokens != null) {
        AddressTokens.Contents t = tokens.open(datagram, header.tokenOffset, header.tokenLength);
        long nowMs = validation.nowMs();
        if (t == null) {
          tokensInvalid++; // not ours, or altered: as if there were none (RFC 9000 §8.1.3)
        } else if (t.kind == AddressTokens.KIND_RETRY) {
          if (!AddressTokens.valid(t, addresses.address(pathId, true), nowMs,
              validation.retryTokenLifetimeMs())) {
            // RFC 9000 §8.1.3: a Retry token that does not validate ends the attempt.
            tokensInvalid++;
            invalidTokenCloses++;
            refuse(datagram, keys, scid, dcid, TransportError.INVALID_TOKEN, nowNs, reply,
                Refusal.INVALID_TOKEN);
            return null;
          }
          tokensValid++;
          validated = true;
          handshakeDcid = t.originalDcid;
          retryScid = dcid;
        } else if (AddressTokens.valid(t, addresses.address(pathId, false), nowMs,
            validation.newTokenLifetimeMs())) {
          tokensValid++;
          validated = true;
        } else {
          tokensInvalid++; // an old or moved NEW_TOKEN token: ignored (RFC 9000 §8.1.3)
        }
      }
      int inProgress = handshakesInProgress();
      if (inProgress >= validation.maxHandshakes()) {
        handshakesRefused++;
        refuse(datagram, keys, scid, dcid, TransportError.CONNECTION_REFUSED, nowNs, reply,
            Refusal.HANDSHAKE_LIMIT);
        return null;
      }
      if (!validated && retries != null && encrypted && shouldRetry(inProgress)) {
        sendRetry(scid, dcid, pathId, reply);
        return null; // RFC 9000 §8.1.2: no state for this datagram
      }
      c = Connection.server(config, null, dcid, scid, header.version, Connection.scheduler(config),
          encrypted ? (EpochPacketKeys) keys : null, handshakeDcid, retryScid);
      // The connection starts on the path its first datagram came from: anything it sends, a
      // CONNECTION_CLOSE refusing the handshake included, goes back there (RFC 9000 §8.1), and
      // that first packet is no change of path to validate (§9.3). RFC 9000 §8.1.3: a valid
      // token lifts the 3x limit.
      c.path.reset(pathId, validated);
      if (resets != null) {
        c.localResetToken = resets.token(c.localConnectionId());
        c.localResetProofKey = resets.proofKey(c.localConnectionId());
      }
      c.setListener(listeners.apply(c));
      byCid.put(keyOf(dcid), c);
      byCid.put(keyOf(c.localConnectionId()), c);
      connections.add(c);
      handshaking.add(c);
    }
    if (c == null) {
      // RFC 9000 §14.1: an INITIAL in a datagram under 1200 bytes is discarded, whoever sent it.
      drop(header.type == PacketType.INITIAL && datagram.remaining() < 1200 ? Refusal.MALFORMED
          : Refusal.UNKNOWN_CONNECTION);
      if (header.type == PacketType.ONE_RTT) {
        answerUnknownConnection(datagram, start, nowNs, reply);
      }
      return null;
    }
    c.onDatagram(datagram, nowNs, pathId);
    if (c.handshakeConfirmed && !c.newTokenIssued && tokens != null
        && validation.sendNewTokens() && c.state == ConnectionState.ESTABLISHED) {
      // RFC 9000 §8.1.3: once the handshake is confirmed, a token for the next connection,
      // bound to the client's IP address (not the port, which a NAT may change meanwhile).
      c.newTokenIssued = true;
      c.newToken = tokens.seal(AddressTokens.KIND_NEW_TOKEN, validation.nowMs(),
          addresses.address(pathId, false), null);
      c.newTokenPending = true;
      newTokensIssued++;
    }
    return c;
  }

  /**
   * Handshakes in progress: connections created and neither confirmed nor closed. The list is
   * pruned here, on creating INITIALs only, and holds at most the bound's worth.
   */
  private int handshakesInProgress() {
    int n = 0;
    for (int i = 0; i < handshaking.size(); i++) {
      Connection c = handshaking.get(i);
      if (!c.handshakeConfirmed && c.state != ConnectionState.CLOSED
          && c.state != ConnectionState.DRAINING && c.state != ConnectionState.CLOSING) {
        handshaking.set(n++, c);
      }
    }
    for (int i = handshaking.size() - 1; i >= n; i--) {
      handshaking.remove(i);
    }
    return n;
  }

  /** docs/protocol.md §9.9: whether an INITIAL without a valid token is answered with Retry. */
  private boolean shouldRetry(int inProgress) {
    switch (validation.retryPolicy()) {
      case ALWAYS:
        return true;
      case WHEN_BUSY:
        return inProgress >= validation.retryAboveHandshakes();
      default:
        return false;
    }
  }

  /**
   * Answers the INITIAL with a Retry (RFC 9000 §17.2.5, §8.1.2) carrying a token that names the
   * client's address and port, the time and the INITIAL's Destination Connection ID, under a
   * new Source Connection ID. Stateless: everything the server needs later is in the token. The
   * Retry is far smaller than the 1200-byte INITIAL it answers, so it cannot amplify.
   */
  private void sendRetry(ConnectionId clientScid, ConnectionId odcid, long pathId,
      ByteBuffer reply) {
    ConnectionId retryScid = ConnectionId.forServer(random, config.configRotation,
        config.serverId);
    byte[] token = tokens.seal(AddressTokens.KIND_RETRY, validation.nowMs(),
        addresses.address(pathId, true), odcid);
    if (retries.write(reply, header.version, random.nextInt(), clientScid, retryScid, token,
        odcid) > 0) {
      retriesSent++;
    }
  }

  /**
   * Refuses a client statelessly (RFC 9000 §10.2.3): an INITIAL with CONNECTION_CLOSE under the
   * Initial keys of the client's INITIAL, far smaller than that INITIAL (no amplification), at
   * most {@link #MAX_RESETS_PER_SECOND} a second; beyond that the datagram is only dropped.
   */
  private void refuse(ByteBuffer datagram, PacketProtection keys, ConnectionId clientScid,
      ConnectionId dcid, TransportError error, long nowNs, ByteBuffer reply, Refusal why) {
    dropped++;
    refusals.refused(why);
    if (nowNs - closeWindowStartNs >= 1_000_000_000L) {
      closeWindowStartNs = nowNs;
      closesInWindow = 0;
    }
    if (closesInWindow >= MAX_RESETS_PER_SECOND || reply.remaining() < 128) {
      return;
    }
    closesInWindow++;
    int start = reply.position();
    int lengthOffset = PacketWriter.writeInitialHeader(reply, header.version, clientScid, dcid,
        0, 1);
    int payloadStart = reply.position();
    ConnectionCloseFrame.encodeTransport(reply, error, 0, NO_REASON);
    int pad = payloadStart + keys.minPayloadBytes(1) - reply.position();
    if (pad > 0) {
      SimpleFrames.encodePadding(reply, pad);
    }
    PacketWriter.patchLength(reply, lengthOffset, reply.position(), keys.overheadBytes());
    if (!keys.seal(reply, start, payloadStart, 0)) {
      ((Buffer) reply).position(start);
      return;
    }
    keys.applyHeaderProtection(reply, start, payloadStart - 1);
  }

  private static final byte[] NO_REASON = new byte[0];

  /**
   * Sets what the driver knows of its paths' addresses, which tokens are bound to; without it,
   * {@link PeerAddresses#PATH_IDS}.
   */
  public void setPeerAddresses(PeerAddresses addresses) {
    this.addresses = addresses == null ? PeerAddresses.PATH_IDS : addresses;
  }

  /** Retry packets sent (RFC 9000 §8.1.2), each instead of a connection. */
  public long retriesSent() {
    return retriesSent;
  }

  /** Tokens in creating INITIALs that validated the client's address. */
  public long tokensValid() {
    return tokensValid;
  }

  /**
   * Tokens in creating INITIALs that did not: not ours, altered, expired, or for another address.
   */
  public long tokensInvalid() {
    return tokensInvalid;
  }

  /** INITIALs refused with CONNECTION_REFUSED: the handshakes in progress were at the bound. */
  public long handshakesRefused() {
    return handshakesRefused;
  }

  /** INITIALs refused with INVALID_TOKEN: a Retry token that did not validate. */
  public long invalidTokenCloses() {
    return invalidTokenCloses;
  }

  /** NEW_TOKEN tokens issued, one per confirmed connection. */
  public long newTokensIssued() {
    return newTokensIssued;
  }

  /** Handshakes in progress now (connections created and not yet confirmed). */
  public int handshakesInProgressNow() {
    return handshakesInProgress();
  }

  /** Counts a dropped datagram and tells the listener why. */
  private void drop(Refusal why) {
    dropped++;
    refusals.refused(why);
  }

  /**
   * Sets who hears of the datagrams dropped or answered statelessly ({@link Refusal}); they are
   * counted in {@link #dropped()} too, except those answered with Version Negotiation. Null:
   * nobody (the default).
   */
  public void setRefusalListener(RefusalListener listener) {
    this.refusals = listener == null ? RefusalListener.NONE : listener;
  }

  /**
   * RFC 9000 §10.3: a short-header packet for a connection ID we do not know (a connection this
   * server had before it restarted, or one already discarded) is answered with a stateless reset
   * carrying the token the client learned for that ID, so that it stops at once instead of
   * waiting out the silence. The reset is shorter than the packet (no loop, no amplification)
   * and at most {@link #MAX_RESETS_PER_SECOND} leave a second.
   */
  private void answerUnknownConnection(ByteBuffer datagram, int start, long nowNs, ByteBuffer reply) {
    if (resets == null || header.dcidLength != ConnectionId.V1_LENGTH) {
      return;
    }
    if (nowNs - resetWindowStartNs >= 1_000_000_000L) {
      resetWindowStartNs = nowNs;
      resetsInWindow = 0;
    }
    if (resetsInWindow >= MAX_RESETS_PER_SECOND) {
      return;
    }
    long uptimeMs = boundAtNs == NOT_BOUND ? -1 : Math.max(0, (nowNs - boundAtNs) / 1_000_000);
    if (resets.write(reply, datagram.limit() - start, datagram, header.dcidOffset, header.dcidLength, random,
        uptimeMs) > 0) {
      resetsInWindow++;
      statelessResetsSent++;
    }
  }

  /**
   * Whether the first packet of {@code datagram} (just parsed into {@link #header}) opens with
   * {@code keys}, tried on a copy: opening removes header protection and decrypts in place.
   */
  private boolean opens(ByteBuffer datagram, PacketProtection keys) {
    int start = header.packetStart;
    int length = header.packetEnd - start;
    if (scratch.capacity() < length) {
      scratch = ByteBuffer.allocate(length); // a datagram larger than any seen so far
    }
    ((Buffer) scratch).clear();
    Buffers.put(scratch, 0, datagram, start, length);
    ((Buffer) scratch).limit(length);
    PacketHeader h = scratchHeader;
    if (!h.parse(scratch, 0, ConnectionId.V1_LENGTH)) {
      return false;
    }
    int pnLength = keys.removeHeaderProtection(scratch, 0, h.pnOffset, h.packetEnd);
    if (pnLength < 0) {
      return false;
    }
    h.readPacketNumber(scratch, pnLength);
    long pn = PacketNumber.decode(-1, h.truncatedPn, 8 * pnLength);
    return keys.open(scratch, 0, h.payloadOffset(), h.packetEnd, pn) >= 0;
  }

  /**
   * RFC 8999 §5.1: a long header (first bit set) carries a version in bytes 1-4 whatever its
   * other bits; version 0 is Version Negotiation, which a server never answers (RFC 9000 §6.1).
   */
  private boolean unknownVersion(ByteBuffer datagram, int start) {
    if (datagram.remaining() < 5 || (datagram.get(start) & 0x80) == 0) {
      return false;
    }
    int version = datagram.getInt(start + 1);
    return version != Versions.NEGOTIATION && !Versions.contains(config.versions, version);
  }

  /**
   * Answers a long header of a version we do not speak with Version Negotiation, before parsing
   * anything past the invariant fields (RFC 8999 §6: type bits, fixed bit and the rest belong to
   * the version), if the datagram is large enough to open a connection (RFC 9000 §5.2.2, §6.1:
   * at least 1200 bytes, so the answer cannot amplify). The connection IDs are echoed as the
   * invariants allow them, up to 255 bytes each (RFC 8999 §5.1).
   */
  private void answerUnknownVersion(ByteBuffer datagram, int start, ByteBuffer reply) {
    int limit = datagram.limit();
    int p = start + 5;
    if (limit - start < PacketBuilder.MIN_INITIAL_DATAGRAM || p >= limit) {
      drop(Refusal.MALFORMED);
      return;
    }
    int dcidLength = datagram.get(p) & 0xff;
    int dcidOffset = p + 1;
    p = dcidOffset + dcidLength;
    if (p >= limit) {
      drop(Refusal.MALFORMED);
      return;
    }
    int scidLength = datagram.get(p) & 0xff;
    int scidOffset = p + 1;
    int answer = 7 + dcidLength + scidLength + 4 * config.versions.length;
    if (scidOffset + scidLength > limit || reply.remaining() < answer) {
      drop(Refusal.MALFORMED);
      return;
    }
    PacketWriter.writeVersionNegotiation(reply, random.nextInt(), datagram, dcidOffset,
        dcidLength, scidOffset, scidLength, config.versions);
    versionNegotiationsSent++;
    refusals.refused(Refusal.UNSUPPORTED_VERSION);
  }

  private Connection lookup(ByteBuffer b, int offset, int length) {
    if (length < 8) {
      return null;
    }
    Connection c = byCid.get(cidHash.hash(b, offset, length));
    // A 64-bit keyed hash collides by chance only; never route by a collision.
    if (c != null && !c.localCid.matches(b, offset, length)
        && !c.originalDcid.matches(b, offset, length)) {
      return null;
    }
    return c;
  }

  /** The table key of a connection ID (on connection setup and removal only: it allocates). */
  private long keyOf(ConnectionId cid) {
    ByteBuffer b = ByteBuffer.allocate(cid.length());
    cid.write(b);
    return cidHash.hash(b, 0, cid.length());
  }

  /** Forgets closed connections; returns how many remain. */
  public int reapClosed() {
    connections.removeIf(c -> {
      if (c.state() == ConnectionState.CLOSED) {
        byCid.remove(keyOf(c.localConnectionId()));
        byCid.remove(keyOf(c.originalDcid));
        return true;
      }
      return false;
    });
    return connections.size();
  }

  /** The live connections (a live view; do not modify). */
  public List<Connection> connections() {
    return connections;
  }

  /** Datagrams dropped because they named no connection or could not be parsed. */
  public long dropped() {
    return dropped;
  }

  /**
   * INITIALs that would have created a connection but did not open (RFC 9001 §5.5): corrupt,
   * forged, or sealed with other keys. Also counted in {@link #dropped()}.
   */
  public long packetsFailedToOpen() {
    return packetsFailedToOpen;
  }

  /** Version Negotiation packets sent. */
  public long versionNegotiationsSent() {
    return versionNegotiationsSent;
  }

  /**
   * The driver bound the server's socket at {@code nowNs}: the stateless resets of this server
   * prove their uptime from then (docs/protocol.md §8). A restarted server's socket is bound
   * after the previous process lost the port (no address reuse), so a call its client opened
   * after that moment can only have reached this process. Without it, resets carry no proof.
   */
  public void socketBound(long nowNs) {
    boundAtNs = nowNs;
  }

  /** Stateless resets sent for packets of unknown connections (RFC 9000 §10.3). */
  public long statelessResetsSent() {
    return statelessResetsSent;
  }
}
