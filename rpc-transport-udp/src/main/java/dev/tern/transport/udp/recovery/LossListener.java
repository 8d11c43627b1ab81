package dev.tern.transport.udp.recovery;

/**
 * Told when loss detection declares ack-eliciting packets lost (RFC 9002 §6.1), whose frames are
 * then queued to be sent again: what a driver reports as retransmissions. Called on the
 * connection's thread, at most once per acknowledgement or timeout that declares any; it must
 * neither block nor allocate. The core itself needs none ({@link #NONE}).
 */
@FunctionalInterface
public interface LossListener {
  /** Hears nothing: every connection's listener until its driver sets one. */
  LossListener NONE = count -> { };

  /**
   * Ack-eliciting packets were just declared lost.
   *
   * @param count how many, at least 1
   */
  void packetsLost(int count);
}
