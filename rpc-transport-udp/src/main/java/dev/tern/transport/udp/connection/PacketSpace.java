package dev.tern.transport.udp.connection;

import dev.tern.transport.udp.congestion.CongestionController;
import dev.tern.transport.udp.packet.PacketProtection;
import dev.tern.transport.udp.recovery.AckTracker;
import dev.tern.transport.udp.recovery.Flight;
import dev.tern.transport.udp.recovery.LossDetector;
import dev.tern.transport.udp.recovery.RttEstimator;
import dev.tern.transport.udp.recovery.SentFrameSink;
import dev.tern.transport.udp.recovery.SentPacketLog;

/**
 * One packet-number space (RFC 9000 §12.3): its own packet numbers from 0, its own
 * acknowledgements and its own loss detection (RFC 9002 §A: {@code loss_time[space]},
 * {@code time_of_last_ack_eliciting_packet[space]}), sharing with the other spaces the RTT
 * estimate, the congestion controller and the {@link Flight}. A space is discarded with its
 * keys (RFC 9001 §4.9): its packets leave the flight uncounted and it sends and accepts nothing
 * more.
 */
final class PacketSpace {
  /** The spaces by index. */
  static final int INITIAL = 0;
  static final int HANDSHAKE = 1;
  /** 1-RTT, and 0-RTT, which shares its space (RFC 9000 §12.3). */
  static final int APPLICATION = 2;
  static final int COUNT = 3;

  final int index;
  final SentPacketLog log = new SentPacketLog();
  final AckTracker acks;
  final LossDetector loss;
  /**
   * The space's packet protection (RFC 9001 §4: one epoch's keys), or null while this side has
   * no keys for it yet (the client's 1-RTT keys before the ServerHello).
   */
  PacketProtection protection;
  private boolean discarded;

  PacketSpace(int index, long maxAckDelayNs, RttEstimator rtt, CongestionController cc,
      SentFrameSink sink, Flight flight) {
    this.index = index;
    this.acks = new AckTracker(maxAckDelayNs);
    this.loss = new LossDetector(log, rtt, cc, sink, flight, index);
  }

  /** Whether the space's keys are gone. */
  boolean discarded() {
    return discarded;
  }

  /**
   * Discards the space (RFC 9002 §6.4): its packets in flight are removed from bytes in flight
   * without a congestion signal, its timers stop, and nothing more is acknowledged in it.
   */
  void discard() {
    if (!discarded) {
      discarded = true;
      protection = null; // RFC 9001 §4.9: the keys go with the space
      loss.setArmWithoutInFlight(false);
      loss.discardAll();
    }
  }

  /** The space's name, for reports. */
  static String name(int index) {
    return index == INITIAL ? "Initial" : index == HANDSHAKE ? "Handshake" : "1-RTT";
  }
}
