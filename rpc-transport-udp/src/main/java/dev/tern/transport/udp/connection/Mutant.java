package dev.tern.transport.udp.connection;

/**
 * Deliberate defects in recovery, for the simulator campaign's check of itself: a campaign that
 * still passes with one of these switched on is too weak to notice it (docs/udp-simulator.md,
 * "Mutants"). Set only through {@link ConnectionConfig#withMutant}; never in a deployment.
 */
public enum Mutant {
  /** The protocol as specified. */
  NONE,
  /** Every probe timeout four times as long as RFC 9002 §6.2.1 computes it. */
  PTO_4X,
  /**
   * No early loss detection from acknowledgements: neither the packet threshold (RFC 9002 §6.1.1)
   * nor the time threshold (§6.1.2, 9/8 RTT) declares a packet lost; an acknowledgement declares
   * lost only packets sent more than a probe timeout before it, as a sender without fast
   * retransmit waits for its retransmission timer.
   */
  NO_FAST_RETRANSMIT,
  /** No pacing (RFC 9002 §7.7): every packet the congestion window allows leaves at once. */
  NO_PACING
}
