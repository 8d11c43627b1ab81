package dev.tern.transport.udp.connection;

/**
 * Deliberate defects, for the simulator campaign's check of itself: a campaign that still passes
 * with a recovery defect switched on is too weak to notice it (docs/udp-simulator.md, "Mutants"),
 * and a peer that acknowledges what it never received must be caught. Package-private: set only
 * through {@link ConnectionConfig#withMutant}, which only the module's tests reach (through a
 * test-scope class of this package); no deployment can switch one on.
 */
enum Mutant {
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
  NO_PACING,
  /**
   * An optimistic acknowledger (RFC 9000 §21.4): the application space's ACKs claim every packet
   * number up to the largest received, gaps included, as a receiver that wants a larger window
   * than the path gives. Meant for one end only; its peer must close the connection.
   */
  OPTIMISTIC_ACKS
}
