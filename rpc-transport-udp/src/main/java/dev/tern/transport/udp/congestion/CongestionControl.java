package dev.tern.transport.udp.congestion;

/** The congestion-control algorithms, chosen per connection. */
public enum CongestionControl {
  /** RFC 9002 §7 / RFC 6582. */
  NEW_RENO,
  /** RFC 9438. */
  CUBIC,
  /** BBR, v2/v3 style: model-based, robust to random loss. */
  BBR
}
