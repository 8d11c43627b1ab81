package dev.tern.netlab.link;

/** Why a {@link Link} did not deliver a packet. */
public enum DropReason {
  /** The packet was delivered (at least one copy). */
  NONE,
  /** The bottleneck's droptail queue was full when the packet arrived. */
  QUEUE_FULL,
  /** Independent (Bernoulli) random loss. */
  RANDOM_LOSS,
  /** The Gilbert-Elliott channel was in its bad state when the packet left the bottleneck. */
  BURST_LOSS
}
