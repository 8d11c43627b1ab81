package dev.tern.bench.soak;

/** The faults a soak run injects, in the order it injects them (then again from the first). */
enum Fault {
  /** Every datagram dropped, both ways, on the relays the quic and udp channels go through. */
  DROP("drop"),
  /** Random datagrams sent straight at the server's quic and udp ports. */
  GARBAGE("garbage"),
  /** Unary calls with a 1 ms deadline, as fast as the storm's bound lets them go. */
  DEADLINE_STORM("deadline-storm"),
  /** Unary calls cancelled right after they start, or a moment later. */
  CANCEL_STORM("cancel-storm"),
  /** A large download whose client reads one message and then nothing until the fault ends. */
  STALLED_READER("stalled-reader");

  private final String label;

  Fault(String label) {
    this.label = label;
  }

  /** The fault's name in the output. */
  String label() {
    return label;
  }
}
