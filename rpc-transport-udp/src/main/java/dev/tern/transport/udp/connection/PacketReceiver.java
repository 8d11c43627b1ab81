package dev.tern.transport.udp.connection;

import dev.tern.transport.udp.frame.FrameReader;
import dev.tern.transport.udp.frame.TransportError;
import dev.tern.transport.udp.packet.ConnectionId;
import dev.tern.transport.udp.packet.PacketHeader;
import dev.tern.transport.udp.packet.PacketNumber;
import dev.tern.transport.udp.packet.PacketProtection;
import dev.tern.transport.udp.packet.PacketType;
import dev.tern.transport.udp.packet.Versions;
import dev.tern.transport.udp.util.Buffers;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The receive path of a {@link Connection}: splits a datagram into packets, routes, opens and
 * de-duplicates each, hands the frames to the {@link FrameDispatcher} and records the packet for
 * acknowledgement. Drops what does not parse or open, counting it; nothing here throws on bad
 * input. Opening decrypts in place: the datagram's bytes are changed.
 */
final class PacketReceiver {
  private static final int MAX_VN_VERSIONS = 64;

  private PacketReceiver() {}

  static void receive(Connection c, ByteBuffer buf, long pathId) {
    int offset = buf.position();
    int limit = buf.limit();
    int datagramBytes = limit - offset;
    boolean authenticated = false;
    PacketHeader h = c.header;
    while (offset < limit && c.state != ConnectionState.CLOSED) {
      if (isRetry(c, buf, offset, limit)) {
        onRetry(c, buf, offset, limit); // a Retry runs to the end of the datagram (§17.2.5)
        break;
      }
      if (!h.parse(buf, offset, ConnectionId.V1_LENGTH)) {
        c.stats.malformedDropped++;
        break;
      }
      if (h.type == PacketType.VERSION_NEGOTIATION) {
        onVersionNegotiation(c, buf, h);
        break;
      }
      offset = h.packetEnd;
      if (!routable(c, buf, h)) {
        c.stats.unroutableDropped++;
        // A stateless reset's connection ID is random (RFC 9000 §10.3): it lands here.
        if (statelessReset(c, buf, h)) {
          break;
        }
        continue;
      }
      PacketSpace space = c.spaces[spaceOf(h.type)];
      if (space.discarded()) {
        c.stats.discardedSpaceDropped++; // RFC 9001 §4.9: its keys are gone
        continue;
      }
      boolean zeroRtt = h.type == PacketType.ZERO_RTT;
      // RFC 9001 §5.6: 0-RTT packets share the application space but have their own keys.
      PacketProtection keys = zeroRtt ? c.keys.zeroRtt : space.protection;
      if (keys == null && zeroRtt) {
        // Early data rejected, no resumption, or the 0-RTT keys are gone (RFC 9001 §4.9.3).
        c.stats.zeroRttDropped++;
        continue;
      }
      if (keys == null) {
        // RFC 9001 §5.7: no keys for it yet (a 1-RTT packet ahead of the ServerHello, which the
        // server sends coalesced before it): dropped rather than buffered, and re-sent.
        c.stats.noKeysDropped++;
        continue;
      }
      // RFC 9001 §5.4.1: header protection comes off before the packet number is read.
      int pnLength = keys.removeHeaderProtection(buf, h.packetStart, h.pnOffset, h.packetEnd);
      if (pnLength < 0) {
        c.stats.packetsFailedToOpen++; // RFC 9001 §5.4.2: too short to sample
        if (statelessReset(c, buf, h)) {
          break;
        }
        continue;
      }
      h.readPacketNumber(buf, pnLength);
      // RFC 9000 §12.3: each space numbers its packets on its own.
      long pn = PacketNumber.decode(space.acks.largestReceived(), h.truncatedPn, 8 * h.pnLength);
      int payloadEnd = keys.open(buf, h.packetStart, h.payloadOffset(), h.packetEnd, pn);
      if (payloadEnd == PacketProtection.KEYS_DISCARDED) {
        c.stats.oldKeysDropped++; // RFC 9001 §6.1: later than the previous keys were kept
        continue;
      }
      if (payloadEnd < 0) {
        // RFC 9001 §5.5: a packet that does not authenticate is discarded, silently.
        c.stats.packetsFailedToOpen++;
        if (statelessReset(c, buf, h) || integrityLimitExceeded(c, keys)) {
          break;
        }
        continue;
      }
      // RFC 9000 §8.1: what counts towards the limit is bytes of datagrams that carried an
      // authentic packet of this connection, each datagram once; forged or corrupt ones, and
      // those of other connections, raise nothing.
      authenticated = true;
      if (space == c.appSpace && !zeroRtt) {
        c.keys.onOneRttOpened(); // a new key phase starts the old keys' discard timer
      }
      if (space.acks.isDuplicate(pn)) {
        c.stats.duplicatesDropped++;
        continue;
      }
      if (h.type == PacketType.INITIAL && !initialFramesAllowed(c, buf, h, payloadEnd)) {
        c.stats.forbiddenFramesDropped++;
        continue;
      }
      if (c.state == ConnectionState.CLOSING) {
        validateAddress(c, buf, h);
        c.onPacketWhileClosing(); // RFC 9000 §10.2.1: the close again, at a limited rate
        continue;
      }
      if (c.state == ConnectionState.DRAINING) {
        continue;
      }
      if (!processPacket(c, buf, h, space, pn, payloadEnd, pathId)) {
        break;
      }
    }
    if (authenticated) {
      // Credited once the datagram is processed: to the path it moved the connection to, if it
      // did (RFC 9000 §9.3: the new path's budget starts with the datagram that opened it).
      c.onAuthenticatedDatagram(pathId, datagramBytes);
    }
    ((Buffer) buf).position(limit);
  }

  /**
   * RFC 9000 §10.3.1: a short-header packet that cannot be processed (its connection ID is not
   * ours, or it does not open), on a client that has the server's token, is checked for a
   * stateless reset: it ends the datagram (the short header runs to its end) and its last 16
   * bytes are the token. Header protection, if it was removed, changed only the first byte's low
   * bits and the packet number, never the form bits or the end.
   */
  private static boolean statelessReset(Connection c, ByteBuffer buf, PacketHeader h) {
    if (!c.isClient || c.peerResetToken == null || h.type != PacketType.ONE_RTT
        || !StatelessReset.matches(buf, h.packetStart, h.packetEnd, c.peerResetToken)) {
      return false;
    }
    // The proof of the server's uptime lies after the longest header this ID allows (RFC 9000 §17.3).
    long uptime = StatelessReset.provenUptime(buf, h.packetStart + 1 + h.dcidLength + 4, h.packetEnd,
        c.peerResetProofKey, c.config.cryptoProvider().newHmacSha256());
    c.onStatelessReset(uptime);
    return true;
  }

  /**
   * RFC 9001 §6.6: counts a packet that failed authentication against the connection's total
   * over all its keys and, once the total exceeds the AEAD's integrity limit, closes with
   * AEAD_LIMIT_REACHED; the rest of the datagram is then not processed.
   *
   * @return whether the limit is exceeded
   */
  private static boolean integrityLimitExceeded(Connection c, PacketProtection keys) {
    long limit = c.integrityLimit(keys);
    if (limit == Long.MAX_VALUE) {
      return false; // a checksum: corruption, not a forgery
    }
    c.authenticationFailures++;
    if (c.authenticationFailures <= limit) {
      return false;
    }
    c.closeWithError(TransportError.AEAD_LIMIT_REACHED, 0, c.authenticationFailures
        + " packets failed authentication, more than the AEAD's integrity limit of " + limit);
    return true;
  }

  /**
   * RFC 9000 §8.1: the peer used the connection ID we gave it, so it received our packet: the
   * handshake's address is validated. Not a later path's (§9.3): the same connection ID comes
   * from every address the peer moves to, which only a PATH_RESPONSE validates (§8.2).
   */
  private static void validateAddress(Connection c, ByteBuffer buf, PacketHeader h) {
    if (!c.path.validated && !c.pathMoved
        && c.localCid.matches(buf, h.dcidOffset, h.dcidLength)) {
      c.path.validate();
    }
  }

  private static int spaceOf(PacketType type) {
    switch (type) {
      case INITIAL:
        return PacketSpace.INITIAL;
      case HANDSHAKE:
        return PacketSpace.HANDSHAKE;
      default:
        return PacketSpace.APPLICATION; // 1-RTT and 0-RTT (RFC 9000 §12.3)
    }
  }

  /**
   * RFC 9000 §17.2.2: an INITIAL carries only CRYPTO, ACK, PING, PADDING and CONNECTION_CLOSE.
   * The frames are parsed once without effect; a malformed packet passes here and fails in the
   * real pass, which reports the frame encoding error.
   */
  private static boolean initialFramesAllowed(Connection c, ByteBuffer buf, PacketHeader h,
      int payloadEnd) {
    int savedLimit = buf.limit();
    ((Buffer) buf).limit(payloadEnd).position(h.payloadOffset());
    c.initialCheck.begin();
    c.initialCheckReader.read(buf, c.initialCheck);
    ((Buffer) buf).limit(savedLimit);
    return !c.initialCheck.forbidden();
  }

  private static boolean routable(Connection c, ByteBuffer buf, PacketHeader h) {
    if (h.type == PacketType.ZERO_RTT) {
      // RFC 9000 §17.2.3: only a client sends 0-RTT, to the server's connection by its first
      // Destination Connection ID (the INITIAL that created the connection carried the same).
      return !c.isClient && h.version == c.version
          && (c.originalDcid.matches(buf, h.dcidOffset, h.dcidLength)
              || c.localCid.matches(buf, h.dcidOffset, h.dcidLength));
    }
    if (h.type == PacketType.ONE_RTT) {
      // A client cannot read 1-RTT packets before it has the server's parameters.
      return c.localCid.matches(buf, h.dcidOffset, h.dcidLength)
          && (!c.isClient || c.state != ConnectionState.HANDSHAKING);
    }
    if (h.type != PacketType.INITIAL || h.version != c.version) {
      return false;
    }
    return c.localCid.matches(buf, h.dcidOffset, h.dcidLength)
        || (!c.isClient && c.originalDcid.matches(buf, h.dcidOffset, h.dcidLength));
  }

  private static boolean processPacket(Connection c, ByteBuffer buf, PacketHeader h,
      PacketSpace space, long pn, int payloadEnd, long pathId) {
    if (c.isClient && h.type == PacketType.INITIAL && !c.peerCidLearned) {
      c.peerCid = ConnectionId.read(buf, h.scidOffset, h.scidLength);
      c.peerCidLearned = true;
    }
    validateAddress(c, buf, h);
    if (!c.isClient && h.type == PacketType.ONE_RTT) {
      c.peerEstablished = true;
      c.dispatcher.onClientOneRtt();
    }
    boolean confirmedBefore = c.handshakeConfirmed;
    int savedLimit = buf.limit();
    ((Buffer) buf).limit(payloadEnd).position(h.payloadOffset());
    c.dispatcher.begin();
    c.rxSpace = space.index;
    // Streams record data that came in 0-RTT, which may be replayed (RFC 9001 §4.6.1, §9.2).
    boolean zeroRtt = h.type == PacketType.ZERO_RTT;
    c.streams.receivingEarlyData(zeroRtt);
    c.rxZeroRtt = zeroRtt;
    int result = c.reader.read(buf, c.dispatcher);
    c.rxZeroRtt = false;
    c.streams.receivingEarlyData(false);
    if (zeroRtt) {
      c.stats.zeroRttPackets++;
    }
    ((Buffer) buf).limit(savedLimit);
    if (result != FrameReader.OK) {
      c.stats.malformedDropped++;
      c.closeWithError(TransportError.FRAME_ENCODING_ERROR, result,
          "malformed frame of type 0x" + Integer.toHexString(result));
      return false;
    }
    if (c.dispatcher.handshakeFailure != null) {
      c.closeWithHandshakeError(c.dispatcher.handshakeFailure);
      return false;
    }
    if (c.dispatcher.error != null) {
      c.closeWithError(c.dispatcher.error, c.dispatcher.errorFrameType, c.dispatcher.errorReason);
      return false;
    }
    long largestBefore = space.acks.largestReceived();
    space.acks.onPacketReceived(pn, c.reader.lastWasAckEliciting(), c.nowNs);
    if (h.type == PacketType.INITIAL) {
      space.acks.ackImmediately(); // RFC 9000 §13.2.1: Initial packets are acknowledged at once
    } else if (c.isClient && !confirmedBefore) {
      // The client's first 1-RTT packets acknowledge at once, as a client's HANDSHAKE packets
      // would (RFC 9000 §13.2.1): they show the server that the ServerHello arrived, which lets
      // it discard its Initial space (RFC 9001 §4.9.1) rather than probe it.
      space.acks.ackImmediately();
    }
    if (c.state == ConnectionState.ESTABLISHED
        && (c.isClient || h.type == PacketType.ONE_RTT)) {
      // RFC 9001 §4.9.1: the client has the server's message and sends 1-RTT from now on; the
      // server's first 1-RTT packet from the client shows it has the server's message.
      c.discardInitialSpace();
    }
    c.stats.packetsReceived++;
    c.flight.eventLog().packetReceived(c.nowNs, space.index, pn, h.packetEnd - h.packetStart);
    c.idle.onPacketReceived(c.nowNs, c.reader.lastWasAckEliciting());
    c.onPeerHeard(c.nowNs);
    if (pn > largestBefore && pathId != c.path.id) {
      // RFC 9000 §9.3: follow the peer's new address at once, validate it in the background.
      c.onPeerAddressChanged(pathId, c.nowNs);
    }
    return c.state != ConnectionState.CLOSED;
  }

  /**
   * Whether the packet at {@code offset} is a Retry of the connection's version: a long header
   * with the fixed bit and type 3 (RFC 9000 §17.2.5), which has no Length or packet number.
   */
  private static boolean isRetry(Connection c, ByteBuffer buf, int offset, int limit) {
    return limit - offset >= 7 && (buf.get(offset) & 0xf0) == 0xf0
        && buf.getInt(offset + 1) == c.version;
  }

  /**
   * A Retry (RFC 9000 §17.2.5.2): a client that has received nothing else from the server and no
   * Retry before accepts one whose integrity tag verifies with the Destination Connection ID it
   * sent to (RFC 9001 §5.8), that carries a token and a Source Connection ID other than that
   * one. It then sends its INITIAL again to the Retry's connection ID with the token, under the
   * Initial keys of that ID (RFC 9001 §5.2), packet numbers continuing; the INITIALs and 0-RTT
   * packets sent before are no longer in flight (RFC 9002 §6.3: they will never be
   * acknowledged), and the 0-RTT data goes again. Anything else is discarded and counted.
   */
  private static void onRetry(Connection c, ByteBuffer buf, int start, int end) {
    if (!c.isClient || c.retrySourceCid != null || c.peerCidLearned
        || c.state != ConnectionState.HANDSHAKING) {
      c.stats.retriesDiscarded++;
      return;
    }
    int p = start + 5;
    int dcidLength = buf.get(p) & 0xff;
    int dcidOffset = p + 1;
    p = dcidOffset + dcidLength;
    if (dcidLength > ConnectionId.MAX_LENGTH || p >= end) {
      c.stats.retriesDiscarded++;
      return;
    }
    int scidLength = buf.get(p) & 0xff;
    int scidOffset = p + 1;
    int tokenOffset = scidOffset + scidLength;
    int tokenLength = end - RetryPacket.TAG_BYTES - tokenOffset;
    if (scidLength > ConnectionId.MAX_LENGTH || scidLength == 0 || tokenLength <= 0
        || !c.localCid.matches(buf, dcidOffset, dcidLength)
        || c.peerCid.matches(buf, scidOffset, scidLength)
        || !new RetryPacket(c.config.cryptoProvider).verify(c.peerCid, buf, start, end)) {
      c.stats.retriesDiscarded++;
      return;
    }
    c.stats.retriesAccepted++;
    ConnectionId scid = ConnectionId.read(buf, scidOffset, scidLength);
    byte[] token = new byte[tokenLength];
    Buffers.get(buf, tokenOffset, token);
    c.retrySourceCid = scid;
    c.peerCid = scid;
    c.initialToken = token;
    c.handshakeCopy.cancel(); // its bytes went to the old connection ID
    c.initialSpace.loss.discardAll();
    if (c.keys.canSendZeroRtt()) {
      // RFC 9000 §17.2.5.3: the server kept nothing of the 0-RTT packets that came with the
      // INITIAL it answered; their data goes again in 0-RTT packets to the new connection ID,
      // without a congestion signal (RFC 9002 §6.3: a Retry is neither a loss nor an ack).
      c.appSpace.loss.discardAll();
    }
    c.keys.onRetry(scid);
    c.handshake.onLost(); // the same ClientHello again
  }

  private static void onVersionNegotiation(Connection c, ByteBuffer buf, PacketHeader h) {
    // docs/protocol.md §3: only a client still waiting for its first answer acts on it.
    if (!c.isClient || c.peerCidLearned || c.versionNegotiated || c.retrySourceCid != null
        || c.state != ConnectionState.HANDSHAKING
        || !c.localCid.matches(buf, h.dcidOffset, h.dcidLength)
        || !c.originalDcid.matches(buf, h.scidOffset, h.scidLength)) {
      c.stats.unroutableDropped++;
      return;
    }
    int n = Math.min((h.packetEnd - h.pnOffset) / 4, MAX_VN_VERSIONS);
    if (n == 0) {
      c.stats.malformedDropped++;
      return;
    }
    int[] theirs = new int[n];
    for (int i = 0; i < n; i++) {
      theirs[i] = buf.getInt(h.pnOffset + 4 * i);
      if (theirs[i] == c.version) {
        c.stats.unroutableDropped++;
        return; // RFC 9000 §6.2: ignore a VN listing the version we used
      }
    }
    int chosen = Versions.highestCommon(c.config.versions, theirs, n);
    if (chosen == 0) {
      c.state = ConnectionState.CLOSED;
      c.closeError = TransportError.VERSION_NEGOTIATION_ERROR;
      c.listener.onClosed(c, TransportError.VERSION_NEGOTIATION_ERROR,
          TransportError.VERSION_NEGOTIATION_ERROR.code(),
          "no common version: ours " + hex(c.config.versions) + ", server's "
              + hex(Arrays.copyOf(theirs, n)), false);
      return;
    }
    c.versionNegotiated = true;
    c.handshakeCopy.cancel(); // of the version the server refused
    c.version = chosen;
    c.initialSpace.loss.discardAll();
    // The new version's Initial keys and a new ClientHello: the version is in the Noise prologue.
    c.keys.startClient();
  }

  private static String hex(int[] versions) {
    StringBuilder sb = new StringBuilder("[");
    for (int i = 0; i < versions.length; i++) {
      sb.append(i == 0 ? "" : ", ").append(String.format("0x%08x", versions[i]));
    }
    return sb.append(']').toString();
  }
}
