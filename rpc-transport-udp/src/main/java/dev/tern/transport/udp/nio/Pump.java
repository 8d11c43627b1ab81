package dev.tern.transport.udp.nio;

/**
 * What the application does on an endpoint's loop each turn, after the datagrams and timers and
 * before the sends: open queued streams, write what became writable, check its own deadlines.
 */
public interface Pump {
  /** Does nothing. */
  Pump NONE = nowNs -> { };

  /**
   * Runs once per turn on the loop thread.
   *
   * @param nowNs the turn's time, {@link System#nanoTime()} base
   */
  void pump(long nowNs);

  /**
   * The application's next deadline, so that the loop wakes for it.
   *
   * @return a {@link System#nanoTime()} instant, or Long.MAX_VALUE for none
   */
  default long nextDeadlineNs() {
    return Long.MAX_VALUE;
  }
}
