package dev.tern.transport.udp.connection;

import dev.tern.transport.udp.frame.ConnectionCloseFrame;
import dev.tern.transport.udp.frame.NewTokenFrame;
import dev.tern.transport.udp.frame.PathChallengeFrame;
import dev.tern.transport.udp.frame.PathResponseFrame;
import dev.tern.transport.udp.frame.SimpleFrames;
import dev.tern.transport.udp.frame.TransportError;
import dev.tern.transport.udp.packet.PacketNumber;
import dev.tern.transport.udp.packet.PacketProtection;
import dev.tern.transport.udp.packet.PacketWriter;
import dev.tern.transport.udp.recovery.SentFrameType;
import java.nio.Buffer;
import java.nio.ByteBuffer;

/**
 * The send path of a {@link Connection}: decides whether a packet may leave now (congestion
 * window, pacer, probes, the 3x anti-amplification limit) and fills it: ACK first, then path
 * frames, handshake, control frames and stream data in the scheduler's order. Everything it
 * writes is recorded in the sent-packet log so that loss re-queues exactly those frames.
 */
final class PacketBuilder {
  /** RFC 9000 §14.1: datagrams carrying an INITIAL are at least this large. */
  static final int MIN_INITIAL_DATAGRAM = 1200;
  /** 10 GB/s: far above any real path, low enough for the pacer's arithmetic. */
  static final long MAX_PACING_RATE_BYTES_PER_SECOND = 10_000_000_000L;
  /** RFC 9218 §4.1: the default urgency; data less urgent than this is background data. */
  static final int BACKGROUND_ABOVE_URGENCY = 3;
  /** RFC 9218 §4.1: streams more urgent than the default (urgency 0-2) are urgent. */
  static final int URGENT_BELOW_URGENCY = 3;

  private final Connection c;
  /** Whether the packet being written carries stream data. */
  private boolean wroteStream;

  PacketBuilder(Connection c) {
    this.c = c;
  }

  /**
   * The smallest datagram worth sending on a path whose budget is short of a full one: a 1-RTT
   * packet with an ACK and a PATH_CHALLENGE (RFC 9000 §8.2.1 allows a challenge's datagram under
   * 1200 bytes when the anti-amplification limit does not permit that size).
   */
  static final int MIN_LIMITED_DATAGRAM = 64;

  /** Whether the connection may send anything at all (state and anti-amplification). */
  boolean canSendAnything() {
    return (c.state == ConnectionState.HANDSHAKING || c.state == ConnectionState.ESTABLISHED)
        && amplificationBudget() >= minDatagram();
  }

  /**
   * The smallest datagram the budget must allow: a full one while the Initial space lives (its
   * datagrams are padded to 1200 bytes, RFC 9000 §14.1), a short 1-RTT one after.
   */
  private int minDatagram() {
    return c.initialSpace.discarded() ? MIN_LIMITED_DATAGRAM : c.maxDatagramBytes();
  }

  private long amplificationBudget() {
    // RFC 9000 §8.1, §9.3: at most three times what the unvalidated path's address sent us.
    return c.path.budget();
  }

  /**
   * RFC 9000 §9.3: a datagram waits for the budget of a path being validated. Counted once until
   * the budget grows (more arrives on the path) or the path is validated.
   */
  private void countHold() {
    if (c.pathMoved && !c.path.holdCounted) {
      c.path.holdCounted = true;
      c.stats.datagramsHeldByPathBudget++;
    }
  }

  private boolean hasAckElicitingContent() {
    return c.handshake.pending() || c.handshakeDonePending || c.path.challengePending
        || (c.newTokenPending && c.state == ConnectionState.ESTABLISHED)
        || (c.pingPending && c.state == ConnectionState.ESTABLISHED)
        || (c.state == ConnectionState.ESTABLISHED
            && (c.streamWriter.hasControlFrames() || c.streamWriter.hasStreamData()))
        || (c.issuedTicket != null && c.issuedTicket.pending
            && c.state == ConnectionState.ESTABLISHED)
        || (c.canSendEarlyData() && (c.streamWriter.hasControlFrames()
            || (c.streamWriter.hasStreamData() && earlyDataLeft() >= MIN_EARLY_FRAME)));
  }

  private boolean windowOpen() {
    long inFlight = c.loss.bytesInFlight();
    if (!c.cc.canSend(inFlight, c.maxDatagramBytes()) || !c.log.hasRoom()) {
      return false;
    }
    // Background data fills only the controller's background window: the rest of the window
    // is room for urgent data, so an urgent call does not find it taken by bulk packets that
    // would only have queued at the bottleneck ahead of it.
    return !onlyBackgroundData()
        || inFlight + c.maxDatagramBytes() <= c.cc.backgroundWindowBytes();
  }

  /** Whether all that waits to be sent is stream data less urgent than RFC 9218's default. */
  private boolean onlyBackgroundData() {
    return c.state == ConnectionState.ESTABLISHED && !c.handshake.pending()
        && !c.handshakeDonePending && !c.path.challengePending && !c.pingPending
        && !c.newTokenPending
        && !c.streamWriter.hasControlFrames()
        && c.streamWriter.nextUrgency() > BACKGROUND_ABOVE_URGENCY;
  }

  /** When the pacer lets the next data packet go, or {@code Long.MAX_VALUE} if none waits. */
  long nextPacedSendNs() {
    if (c.probesPending > 0) {
      return c.nowNs;
    }
    int mtuProbe = mtuProbeSize();
    if (mtuProbe > 0) {
      return c.pacer.nextSendTimeNs(c.nowNs, mtuProbe);
    }
    if (!hasAckElicitingContent() || !windowOpen()) {
      return Long.MAX_VALUE;
    }
    updatePacingRate();
    return c.pacer.nextSendTimeNs(c.nowNs, c.maxDatagramBytes());
  }

  /**
   * Feeds the controller's rate to the pacer, capped: on a link with no delay the bandwidth
   * estimate is unbounded, and the pacer's byte-nanosecond arithmetic must not overflow.
   */
  private void updatePacingRate() {
    long rate = c.cc.pacingRateBytesPerSecond(c.rtt);
    c.pacer.setRate(Math.max(1, Math.min(rate, MAX_PACING_RATE_BYTES_PER_SECOND)));
  }

  int poll(ByteBuffer out) {
    if (c.state == ConnectionState.CLOSED || c.state == ConnectionState.DRAINING) {
      return 0;
    }
    int start = out.position();
    int max = Math.min(out.remaining(), c.maxDatagramBytes());
    if (c.state == ConnectionState.CLOSING) {
      return c.closeToSend ? writeClose(out, start, max) : 0;
    }
    if (handshakeCopyDueNs() <= c.nowNs) {
      int n = writeHandshakeCopy(out);
      if (n > 0) {
        return n;
      }
    }
    long budget = amplificationBudget();
    if (budget < max) {
      if (budget < minDatagram()) {
        if (c.pathMoved && hasSomethingToSend()) {
          countHold();
        }
        return 0;
      }
      // RFC 9000 §8.2.1, §9.3: a shorter datagram, as much as the path's budget allows.
      if (c.pathMoved && hasSomethingToSend()) {
        c.stats.bytesTrimmedByPathBudget += max - budget;
      }
      max = (int) budget;
    }
    boolean probe = c.probesPending > 0;
    int mtuProbe = mtuProbeSize();
    if (!probe && mtuProbe > 0 && out.remaining() >= mtuProbe
        && amplificationBudget() >= mtuProbe && c.pacer.canSend(c.nowNs, mtuProbe)) {
      return writeMtuProbe(out, start, mtuProbe);
    }
    boolean hasData = hasAckElicitingContent();
    if (hasData) {
      updatePacingRate();
    }
    // A due PMTU probe goes before further data, or data would spend every token it waits for.
    boolean dataAllowed = probe
        || (mtuProbe == 0 && windowOpen() && c.pacer.canSend(c.nowNs, max));
    boolean ackDue = ackDue();
    if (!ackDue && !probe && !c.pathResponsePending && !(hasData && dataAllowed)) {
      if (!hasData && windowOpen()) {
        c.cc.onApplicationLimited(c.nowNs, c.loss.bytesInFlight());
      }
      return 0;
    }
    return writeDatagram(out, start, max, probe, dataAllowed);
  }

  /** Whether anything waits to be sent: ack-eliciting frames, a probe, an ACK or a response. */
  private boolean hasSomethingToSend() {
    return c.probesPending > 0 || c.pathResponsePending || ackDue() || hasAckElicitingContent();
  }

  /** Room an INITIAL leaves for a coalesced 1-RTT packet (short header, HANDSHAKE_DONE, ACK). */
  private static final int COALESCE_ROOM = 300;

  /**
   * Writes one datagram: one packet, or an INITIAL and a 1-RTT packet coalesced (RFC 9000
   * §12.2) when the server's first flight has 1-RTT frames too (HANDSHAKE_DONE may not go in an
   * INITIAL, RFC 9000 §17.2.2), so that they leave together rather than a pacing interval apart.
   * The datagram, not the INITIAL, is then padded to 1200 bytes (RFC 9000 §14.1).
   */
  private int writeDatagram(ByteBuffer out, int start, int max, boolean probe,
      boolean dataAllowed) {
    PacketSpace space = sendSpace(probe);
    boolean coalesce = space == c.initialSpace && dataAllowed
        && c.state == ConnectionState.ESTABLISHED && c.handshakeDonePending
        && max >= MIN_INITIAL_DATAGRAM
        && (!c.handshake.pending() || c.handshake.frameBytes() <= max - 2 * COALESCE_ROOM);
    copyFirstFlight = false;
    if (space == c.initialSpace && c.canSendEarlyData() && dataAllowed
        && max >= MIN_INITIAL_DATAGRAM
        && (!c.handshake.pending() || c.handshake.frameBytes() <= max - 2 * COALESCE_ROOM)) {
      return writeWithEarlyData(out, start, max, probe);
    }
    int n = writePacket(out, start, start, coalesce ? max - COALESCE_ROOM : max, probe,
        dataAllowed, space, coalesce ? PAD_NEVER : PAD_IF_INITIAL);
    if (n > 0 && coalesce) {
      n += writePacket(out, start, out.position(), max - n, probe && c.probesPending > 0, true,
          c.appSpace, PAD_ALWAYS);
    }
    if (copyFirstFlight) {
      c.handshakeCopy.capture(out, start, c.nowNs); // only the first flight's (§4.1)
    }
    return n;
  }

  /**
   * A resuming client's datagram (RFC 9001 §4.6.1, docs/protocol.md §9.10): its INITIAL, if it
   * has anything to say, then a 0-RTT packet with the early streams' data coalesced after it
   * (RFC 9000 §12.2), which pads the datagram to 1200 bytes when it carries an INITIAL (§14.1).
   * A probe's 0-RTT packet repeats the oldest early data in flight (RFC 9002 §6.2.4), so that a
   * lost first flight costs the request one probe timeout, not a round trip more.
   */
  private int writeWithEarlyData(ByteBuffer out, int start, int max, boolean probe) {
    int n = writePacket(out, start, start, max - COALESCE_ROOM, probe, true, c.initialSpace,
        PAD_NEVER);
    zeroRttPacket = true;
    try {
      n += writePacket(out, start, out.position(), max - n, probe && c.probesPending > 0, true,
          c.appSpace, n > 0 ? PAD_FILL : PAD_NEVER);
    } finally {
      zeroRttPacket = false;
    }
    if (copyFirstFlight) {
      c.handshakeCopy.capture(out, start, c.nowNs); // the 0-RTT packet rides in the copy (§4.1)
    }
    return n;
  }

  /**
   * RFC 9001 §4.6.1: a 0-RTT packet's stream frames stay within what the ticket's early-data
   * limit leaves (all stream data sent before the handshake went in 0-RTT); their headers count
   * against it too, so the data alone never exceeds it.
   */
  private int earlyDataLimit(ByteBuffer out, int limit) {
    return (int) Math.max(out.position(), Math.min(limit, out.position() + earlyDataLeft()));
  }

  /** Room a STREAM frame needs in a 0-RTT packet for at least one byte of data. */
  private static final int MIN_EARLY_FRAME = 8;

  /**
   * Stream bytes the ticket's early-data limit still allows in 0-RTT. Once it is spent, early
   * streams wait for the 1-RTT keys (and the builder does not wake for them before).
   */
  private long earlyDataLeft() {
    if (earlyDataLimitBytes < 0) {
      // Once per connection: finding the ticket compares (copied) keys, not for every poll.
      SessionTicket t = HandshakeCrypto.usableTicket(c.config);
      earlyDataLimitBytes = t == null ? 0 : t.maxEarlyDataBytes();
    }
    return Math.max(0, earlyDataLimitBytes - c.streams.freshBytesSent());
  }

  /** The usable ticket's early-data limit, or -1 until {@link #earlyDataLeft} looked. */
  private long earlyDataLimitBytes = -1;

  /** Whether the packet being written is a 0-RTT packet. */
  private boolean zeroRttPacket;
  /** As {@link #PAD_ALWAYS}, and a packet of PADDING alone if nothing else fits. */
  private static final int PAD_FILL = 3;

  private static final byte[] NO_REASON = new byte[0];
  private static final int PAD_IF_INITIAL = 0;
  private static final int PAD_NEVER = 1;
  private static final int PAD_ALWAYS = 2;
  /** Whether the datagram being written is the first flight's, to be copied (§4.1). */
  private boolean copyFirstFlight;

  /** Whether an ACK is due in any live space that a packet can be sent in now. */
  private boolean ackDue() {
    for (PacketSpace s : c.spaces) {
      if (canSendIn(s) && s.acks.ackDue(c.nowNs)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether a packet of space {@code s} can go out now: a live space, and 1-RTT packets only once
   * the handshake has completed here (RFC 9001 §4.1.1: no 1-RTT keys before). An ACK owed in a
   * space that cannot be used yet waits; its deadline must not be a timer, or it would stay in
   * the past.
   */
  boolean canSendIn(PacketSpace s) {
    return !s.discarded() && (s != c.appSpace || c.state == ConnectionState.ESTABLISHED);
  }

  /**
   * The space of the next packet (one packet per datagram): the Initial space while it is live
   * and has something to send (the handshake message, a due ACK, its probes) or the 1-RTT space
   * cannot be used yet; otherwise the application space.
   */
  private PacketSpace sendSpace(boolean probe) {
    PacketSpace initial = c.initialSpace;
    if (!initial.discarded() && (c.state != ConnectionState.ESTABLISHED || c.handshake.pending()
        || initial.acks.ackDue(c.nowNs) || (probe && c.probeSpace == PacketSpace.INITIAL))) {
      return initial;
    }
    return c.appSpace;
  }

  /**
   * When the copy of the first handshake datagram is due (docs/protocol.md §4.1), or
   * {@code Long.MAX_VALUE}. A copy the peer no longer needs (it has shown it has our handshake
   * message, or sent a 1-RTT packet) or that the state forbids is dropped unsent.
   */
  long handshakeCopyDueNs() {
    HandshakeCopy copy = c.handshakeCopy;
    if (copy.dueNs() == Long.MAX_VALUE) {
      return Long.MAX_VALUE;
    }
    long dataPn = copy.dataPn();
    boolean needless = dataPn >= 0
        ? !c.log.isOpen(dataPn) || c.state != ConnectionState.ESTABLISHED
        : c.handshake.peerHasIt() || c.peerEstablished
            || (c.state != ConnectionState.HANDSHAKING && c.state != ConnectionState.ESTABLISHED);
    if (needless) {
      copy.cancel();
    }
    return copy.dueNs();
  }

  /**
   * Sends the due copy of the first handshake datagram, byte for byte (the same packet number:
   * the receiver keeps whichever arrives first). It is not a new packet, so it is not logged or
   * counted in flight; it does count against the anti-amplification limit (RFC 9000 §8.1), and a
   * copy the limit does not allow is dropped.
   *
   * @return its size, or 0 if it was dropped
   */
  private int writeHandshakeCopy(ByteBuffer out) {
    HandshakeCopy copy = c.handshakeCopy;
    int n = copy.length();
    if (n > out.remaining() || amplificationBudget() < n) {
      copy.cancel();
      return 0;
    }
    boolean data = copy.dataPn() >= 0;
    copy.write(out);
    c.path.onSent(n);
    if (data) {
      c.stats.firstDataCopiesSent++;
    } else {
      c.stats.handshakeCopiesSent++;
    }
    c.stats.bytesSent += n;
    return n;
  }

  /**
   * The size of the PMTU probe due now (RFC 8899), or 0: only once the handshake is done, only in
   * 1-RTT packets, only on a validated path, and only when the window has room for it.
   */
  private int mtuProbeSize() {
    if (c.state != ConnectionState.ESTABLISHED || useInitial() || !c.path.validated) {
      // Nor on a path being validated (RFC 9000 §9.3): its 3x budget is for the challenge and
      // the call's data, and a probe it cannot afford would hold the data back, due for ever.
      return 0;
    }
    int size = c.mtu.probeSize(c.nowNs);
    if (size == 0 || !c.cc.canSend(c.loss.bytesInFlight(), size) || !c.log.hasRoom()
        || !spareCapacityForProbe()) {
      return 0;
    }
    return size;
  }

  /**
   * RFC 8899 §5.1: probing must not hold back the application's data or its repairs. A due probe
   * waits while no 1-RTT packet has been acknowledged yet (so the first request goes first, and
   * the probe needs the window anyway), while lost data waits to be sent again, while data more
   * urgent than RFC 9218's default waits, and while a PTO probe is due. It is only ever deferred,
   * never dropped: it goes with the next spare capacity.
   */
  private boolean spareCapacityForProbe() {
    if (c.probesPending > 0 || c.firstOneRttPn < 0
        || c.loss.largestAckedPn() < c.firstOneRttPn) {
      return false;
    }
    if (!c.streamWriter.hasStreamData()) {
      return true;
    }
    int urgency = c.streamWriter.nextUrgency();
    return urgency >= BACKGROUND_ABOVE_URGENCY && !c.streamWriter.hasRetransmission();
  }

  /**
   * draft-cheng-iccrg-delivery-rate-estimation §3.3.4 (C.app_limited): a packet that enters the
   * flight while no stream data waits (a PMTU probe, control frames such as MAX_DATA, the
   * handshake, a keep-alive) measures the application, not the path. Its delivery-rate sample is
   * marked application-limited, so that it can raise the controller's bandwidth estimate but
   * never lower it, nor count as a round without growth in BBR's full-pipe test. Unmarked, a
   * server that only acknowledges a large upload and sends PMTU probes took one probe per round
   * trip (4 KB/s on a 2 Mbit/s path) for the path's bandwidth and left STARTUP on it.
   */
  private void markApplicationLimitedIfIdle() {
    if (c.state != ConnectionState.ESTABLISHED || !c.streamWriter.hasStreamData()) {
      c.cc.onApplicationLimited(c.nowNs, c.loss.bytesInFlight());
    }
  }

  /** RFC 8899 §4.1: a probe is a PING padded to the size under test; it carries nothing else. */
  private int writeMtuProbe(ByteBuffer out, int start, int size) {
    markApplicationLimitedIfIdle();
    PacketProtection keys = c.appSpace.protection;
    long pn = c.log.beginPacket();
    int pnLength = PacketNumber.encodedLength(pn, c.loss.largestAckedPn());
    PacketWriter.writeShortHeader(out, c.peerCid, pn, pnLength);
    int payloadStart = out.position();
    SimpleFrames.encodePing(out);
    c.log.addFrame(SentFrameType.PING, 0, 0, 0);
    int pad = start + size - keys.overheadBytes() - out.position();
    if (pad > 0) {
      SimpleFrames.encodePadding(out, pad);
    }
    if (!protect(keys, out, start, payloadStart, pnLength, pn)) {
      return 0;
    }
    int sent = out.position() - start;
    c.loss.onPacketSent(c.nowNs, sent, true, true);
    c.pacer.onPacketSent(c.nowNs, sent, true);
    // PMTU discovery sits behind the congestion-controller interface, which numbers packets in
    // the connection-wide sending sequence, not by the space's packet number.
    c.mtu.onProbeSent(c.log.sequence(pn), c.nowNs);
    c.idle.onAckElicitingSent(c.nowNs);
    c.onAckElicitingSent(c.nowNs);
    c.path.onSent(sent);
    c.stats.packetsSent++;
    c.stats.bytesSent += sent;
    return sent;
  }

  private boolean useInitial() {
    // The Initial space lives until the client has the server's parameters, and at the server
    // until the client shows (with a 1-RTT packet) that it has them.
    return !c.initialSpace.discarded();
  }

  /**
   * Writes one packet of {@code space} at the position {@code start} of the datagram begun at
   * {@code datagramStart}, in at most {@code max} bytes.
   *
   * @param pad whether to pad the datagram to 1200 bytes: if this is an ack-eliciting (or the
   *     client's) INITIAL, never (a packet follows), or always (it follows such an INITIAL)
   */
  private int writePacket(ByteBuffer out, int datagramStart, int start, int max, boolean probe,
      boolean dataAllowed, PacketSpace space, int pad) {
    boolean initial = space.index == PacketSpace.INITIAL;
    boolean zeroRtt = zeroRttPacket;
    PacketProtection keys = zeroRtt ? c.keys.zeroRtt : space.protection;
    if (dataAllowed) {
      markApplicationLimitedIfIdle(); // before the packet's frames take what waits
    }
    long pn = space.log.beginPacket();
    int pnLength = PacketNumber.encodedLength(pn, space.loss.largestAckedPn());
    int lengthOffset = -1;
    if (initial) {
      lengthOffset = PacketWriter.writeInitialHeader(out, c.version, c.peerCid, c.localCid,
          c.isClient ? c.initialToken : null, pn, pnLength);
    } else if (zeroRtt) {
      // RFC 9000 §17.2.3, to the server's connection by the client's first DCID.
      lengthOffset = PacketWriter.writeZeroRttHeader(out, c.version, c.peerCid, c.localCid, pn,
          pnLength);
    } else {
      PacketWriter.writeShortHeader(out, c.peerCid, pn, pnLength);
      if (c.firstOneRttPn < 0 && c.initialSpace.discarded()) {
        // The first 1-RTT packet after the handshake's (the server's HANDSHAKE_DONE rides in
        // its first flight): PMTU probing waits for its acknowledgement.
        c.firstOneRttPn = pn;
      }
    }
    int payloadStart = out.position();
    int limit = start + max - keys.overheadBytes();
    // RFC 9000 §12.4: no ACK in 0-RTT (acknowledgements of the space go in 1-RTT packets).
    if (!zeroRtt && space.acks.hasUnacked()) {
      // A short datagram on a path being validated keeps room for its challenge (RFC 9000 §8.2.1).
      int challengeRoom = !initial && c.path.challengePending
          ? PathChallengeFrame.encodedLength() : 0;
      long largest = space.acks.writeAck(out, c.nowNs,
          Math.min(limit - out.position() - challengeRoom, 400),
          !initial && c.peerWantsTimestamps && c.state == ConnectionState.ESTABLISHED);
      if (largest >= 0) {
        space.log.addFrame(SentFrameType.ACK, largest, 0, 0);
      }
    }
    boolean eliciting = false;
    if (!initial && !zeroRtt && c.pathResponsePending
        && limit - out.position() >= PathResponseFrame.encodedLength()) {
      PathResponseFrame.encode(out, c.pathResponseData);
      c.pathResponsePending = false;
      eliciting = true;
    }
    boolean urgent = false;
    boolean handshakeWaited = c.handshake.pending();
    wroteStream = false;
    if (dataAllowed) {
      eliciting |= initial ? writeInitialData(out, limit) : writeData(out, limit);
      urgent = !initial && c.streamWriter.lastCallMostUrgent() < URGENT_BELOW_URGENCY;
      if (probe && !eliciting) {
        // RFC 9002 §6.2.4: no new data, so the probes repeat the oldest data in flight: one
        // packet's frames per probe still due, so two probes carry the two oldest packets rather
        // than the oldest twice (a lost two-packet request then needs one PTO, not two).
        space.loss.repeatOldest(c.probesPending);
        eliciting = initial ? writeInitialData(out, limit) : writeData(out, limit);
        urgent = !initial && c.streamWriter.lastCallMostUrgent() < URGENT_BELOW_URGENCY;
      }
      if (probe && !eliciting && limit - out.position() >= 1) {
        SimpleFrames.encodePing(out);
        space.log.addFrame(SentFrameType.PING, 0, 0, 0);
        eliciting = true;
      }
    }
    if (out.position() == payloadStart && pad != PAD_FILL) {
      ((Buffer) out).position(start);
      return 0; // nothing fitted or nothing to say
    }
    boolean padded = false;
    if (pad == PAD_ALWAYS || pad == PAD_FILL
        || (pad == PAD_IF_INITIAL && initial && (c.isClient || eliciting))) {
      int datagramMin = Math.min(MIN_INITIAL_DATAGRAM, start - datagramStart + max);
      int bytes = datagramMin - (out.position() - datagramStart) - keys.overheadBytes();
      if (bytes > 0) {
        SimpleFrames.encodePadding(out, bytes);
        padded = true;
      }
    }
    padForSample(keys, out, payloadStart, pnLength);
    if (initial || zeroRtt) {
      PacketWriter.patchLength(out, lengthOffset, out.position(), keys.overheadBytes());
    }
    if (!protect(keys, out, start, payloadStart, pnLength, pn)) {
      return 0;
    }
    int size = out.position() - start;
    if (zeroRtt) {
      c.stats.zeroRttPackets++;
    }
    if (initial && handshakeWaited && !c.handshake.pending()) {
      copyFirstFlight = true; // captured once the datagram is complete
    } else if (!initial && !zeroRtt && wroteStream) {
      c.handshakeCopy.captureFirstData(out, start, c.nowNs, pn); // likewise (§4.1)
    }
    space.loss.onPacketSent(c.nowNs, size, eliciting, eliciting || padded, urgent);
    if (eliciting) {
      c.idle.onAckElicitingSent(c.nowNs);
      c.onAckElicitingSent(c.nowNs);
      c.pacer.onPacketSent(c.nowNs, size, true);
      if (probe) {
        c.probesPending--;
      }
    }
    c.path.onSent(size);
    c.stats.packetsSent++;
    c.stats.bytesSent += size;
    if (c.retransmitQueued && c.streamWriter.lastCallRetransmitted()) {
      c.stats.packetsRetransmitted++;
    }
    return size;
  }

  /**
   * The frames of an INITIAL packet besides ACK, PING and PADDING (RFC 9000 §17.2.2): the
   * handshake message in a CRYPTO frame.
   */
  private boolean writeInitialData(ByteBuffer out, int limit) {
    if (c.handshake.pending() && limit - out.position() >= c.handshake.frameBytes()) {
      c.handshake.write(out, c.initialSpace.log);
      return true;
    }
    return false;
  }

  private boolean writeData(ByteBuffer out, int limit) {
    boolean eliciting = false;
    Path path = c.path;
    if (path.challengePending && limit - out.position() >= PathChallengeFrame.encodedLength()) {
      PathChallengeFrame.encode(out, path.challengeData);
      c.log.addFrame(SentFrameType.PATH_CHALLENGE, path.challengeData, 0, 0);
      path.challengePending = false;
      path.challengeOutstanding = true;
      eliciting = true;
    }
    if (c.handshakeDonePending && limit - out.position() >= 1) {
      SimpleFrames.encodeHandshakeDone(out);
      c.log.addFrame(SentFrameType.HANDSHAKE_DONE, 0, 0, 0);
      c.handshakeDonePending = false;
      eliciting = true;
    }
    if (c.issuedTicket != null && c.issuedTicket.pending && !zeroRttPacket
        && c.state == ConnectionState.ESTABLISHED
        && limit - out.position() >= c.issuedTicket.frameBytes()) {
      c.issuedTicket.write(out, c.log); // docs/protocol.md §9.10, 1-RTT only
      eliciting = true;
    }
    if (c.state == ConnectionState.ESTABLISHED && !zeroRttPacket && c.newTokenPending
        && c.newToken != null
        && limit - out.position() >= NewTokenFrame.encodedLength(c.newToken)) {
      // RFC 9000 §8.1.3, §19.7: the server's token for the client's next connection.
      NewTokenFrame.encode(out, c.newToken);
      c.log.addFrame(SentFrameType.NEW_TOKEN, 0, 0, 0);
      c.newTokenPending = false;
      eliciting = true;
    }
    if (c.state == ConnectionState.ESTABLISHED || zeroRttPacket) {
      if (c.pingPending && limit - out.position() >= 1) {
        // Keep-alive (IdlePolicy): any ack-eliciting frame would do; a PING is the smallest.
        SimpleFrames.encodePing(out);
        c.log.addFrame(SentFrameType.PING, 0, 0, 0);
        c.pingPending = false;
        eliciting = true;
      }
      eliciting |= c.streamWriter.writeControlFrames(out, limit, c.log);
      boolean stream = c.streamWriter.writeStreamFrames(out,
          zeroRttPacket ? earlyDataLimit(out, limit) : limit, c.log);
      wroteStream |= stream;
      eliciting |= stream;
    }
    return eliciting;
  }

  /**
   * Writes the CONNECTION_CLOSE packet of the closing state (RFC 9000 §10.2.1), in the Initial
   * space while it lives. An application's close becomes a CONNECTION_CLOSE with
   * APPLICATION_ERROR and no reason in an INITIAL (RFC 9000 §10.2.3: INITIAL packets are readable
   * by anyone on the path). Like every packet it stays within the anti-amplification limit (RFC
   * 9000 §8.1): a close the budget does not allow is not sent (the next packet from the peer
   * raises the budget and may draw one).
   */
  private int writeClose(ByteBuffer out, int start, int max) {
    boolean initial = useInitial();
    c.closeToSend = false;
    int n = writeCloseIn(initial ? c.initialSpace : c.appSpace, initial, out, start);
    // RFC 9000 §10.2.3: before the handshake is confirmed the peer may no longer read INITIAL
    // packets (a client drops its Initial keys once it has the server's answer, while this server
    // still waits for its first 1-RTT packet), so the close goes in a 1-RTT packet as well,
    // coalesced into the same datagram (§12.2).
    if (initial && n > 0 && c.appSpace.protection != null && max - n > MIN_CLOSE_PACKET) {
      n += writeCloseIn(c.appSpace, false, out, out.position());
    }
    if (n > 0 && c.closePeriodUnstarted) {
      c.startClosePeriod(); // poll observed the time: the period runs from this send
    }
    return n;
  }

  /** Room a 1-RTT close needs besides its reason: header, frame, AEAD tag. */
  private static final int MIN_CLOSE_PACKET = 64;

  /** One CONNECTION_CLOSE packet of {@code space} at {@code start}; its size, or 0 if none. */
  private int writeCloseIn(PacketSpace space, boolean initial, ByteBuffer out, int start) {
    PacketProtection keys = space.protection;
    if (keys == null) {
      return 0; // no keys to close with: the peer learns of it from its idle timer
    }
    long pn = space.log.beginPacket();
    int pnLength = PacketNumber.encodedLength(pn, space.loss.largestAckedPn());
    int lengthOffset = -1;
    if (initial) {
      lengthOffset = PacketWriter.writeInitialHeader(out, c.version, c.peerCid, c.localCid,
          c.isClient ? c.initialToken : null, pn, pnLength);
    } else {
      PacketWriter.writeShortHeader(out, c.peerCid, pn, pnLength);
    }
    int payloadStart = out.position();
    if (c.closeApplication && initial) {
      ConnectionCloseFrame.encodeTransport(out, TransportError.APPLICATION_ERROR, 0, NO_REASON);
    } else if (c.closeApplication) {
      ConnectionCloseFrame.encodeApplication(out, c.closeCode, c.closeReason);
    } else {
      ConnectionCloseFrame.encodeTransport(out, c.closeCode, c.closeFrameType, c.closeReason);
    }
    padForSample(keys, out, payloadStart, pnLength);
    if (out.position() - start + keys.overheadBytes() > amplificationBudget()) {
      ((Buffer) out).position(start); // withdrawn before sealing: the packet number stays unused
      c.stats.closesBlockedByAmplificationLimit++;
      return 0;
    }
    if (initial) {
      PacketWriter.patchLength(out, lengthOffset, out.position(), keys.overheadBytes());
    }
    if (!protect(keys, out, start, payloadStart, pnLength, pn)) {
      return 0;
    }
    int size = out.position() - start;
    space.loss.onPacketSent(c.nowNs, size, false, false);
    c.path.onSent(size);
    c.stats.packetsSent++;
    c.stats.bytesSent += size;
    return size;
  }

  /**
   * RFC 9001 §5.4.2: pads the payload so that the header-protection sample, 4 bytes past the
   * packet number's start, lies inside the ciphertext.
   */
  private static void padForSample(PacketProtection keys, ByteBuffer out, int payloadStart,
      int pnLength) {
    int shortBytes = payloadStart + keys.minPayloadBytes(pnLength) - out.position();
    if (shortBytes > 0) {
      SimpleFrames.encodePadding(out, shortBytes);
    }
  }

  /**
   * Seals the packet {@code [start, out.position())} with the header as associated data (RFC
   * 9001 §5.3), then masks its first byte and packet number (§5.4.1).
   *
   * @return false if the keys may seal no more packets (RFC 9001 §6.6): the packet is withdrawn
   *     and the connection closes with AEAD_LIMIT_REACHED
   */
  private boolean protect(PacketProtection keys, ByteBuffer out, int start, int payloadStart,
      int pnLength, long pn) {
    if (!keys.seal(out, start, payloadStart, pn)) {
      ((Buffer) out).position(start);
      c.closeWithError(TransportError.AEAD_LIMIT_REACHED, 0,
          "the packet keys have sealed as many packets as their AEAD allows");
      return false;
    }
    keys.applyHeaderProtection(out, start, payloadStart - pnLength);
    return true;
  }
}
