package dev.tern.bench.scenario;

import dev.tern.netlab.link.LinkConfig;
import dev.tern.netlab.link.LinkProfile;
import dev.tern.netlab.link.LinkProfiles;

/**
 * What the benchmark knows of a link: enough to compute the physical limit each result is read
 * against. Taken from netlab's {@link LinkProfile}, the same object the emulator runs, so the ideal
 * and the link cannot disagree.
 *
 * @param name profile name
 * @param downBitsPerSecond server-to-client mean rate; 0 for unshaped
 * @param upBitsPerSecond client-to-server mean rate; 0 for unshaped
 * @param rttMillis mean round-trip propagation time, without queueing
 * @param loss long-run fraction of downlink packets lost (random plus bursty)
 * @param jitterMillis how far below its mean the round trip can wander (each direction wanders
 *     within +-jitter/2 of its delay)
 * @param trace true when the rate comes from a trace replay (its mean is given)
 */
public record LinkSpec(String name, double downBitsPerSecond, double upBitsPerSecond, double rttMillis,
    double loss, double jitterMillis, boolean trace) {

  /** The unshaped link between two processes on this host's loopback. */
  public static final LinkSpec LOOPBACK = new LinkSpec("loopback", 0, 0, 0, 0, 0, false);

  /**
   * The profile called {@code name}: {@code loopback} or one of netlab's.
   *
   * @throws IllegalArgumentException for an unknown name (the message lists the known ones)
   */
  public static LinkSpec byName(String name) {
    return name.equals(LOOPBACK.name()) ? LOOPBACK : of(LinkProfiles.get(name));
  }

  /** The spec of a netlab profile. */
  public static LinkSpec of(LinkProfile p) {
    LinkConfig up = p.clientToServer();
    LinkConfig down = p.serverToClient();
    return new LinkSpec(p.name(), down.meanRateBitsPerSecond(), up.meanRateBitsPerSecond(), p.rttNs() / 1e6,
        down.lossProbability() + down.burstLossRate(), (up.jitterNs() + down.jitterNs()) / 2e6,
        down.trace() != null);
  }

  /** Whether the link shapes anything (a rate or a delay). */
  public boolean shaped() {
    return downBitsPerSecond > 0 || rttMillis > 0;
  }

  /**
   * The ideal time of a request of {@code upBytes} answered with {@code downBytes}: one mean RTT
   * plus serialising the payloads at the mean link rates (headers left out).
   */
  public double idealExchangeMillis(long upBytes, long downBytes) {
    double ms = rttMillis;
    if (upBitsPerSecond > 0) {
      ms += upBytes * 8 * 1000.0 / upBitsPerSecond;
    }
    if (downBitsPerSecond > 0) {
      ms += downBytes * 8 * 1000.0 / downBitsPerSecond;
    }
    return ms;
  }

  /**
   * The physical floor of the same exchange: the ideal with the delay at the low end of its wander.
   * A measured latency below this is a measurement bug. On trace links the rate can exceed its mean
   * for a while, so the floor leaves serialisation out there.
   */
  public double floorExchangeMillis(long upBytes, long downBytes) {
    return (trace ? rttMillis : idealExchangeMillis(upBytes, downBytes)) - jitterMillis;
  }

  /** The highest goodput the downlink allows: mean rate x (1 - loss), in bits per second; 0 when unshaped. */
  public double idealGoodputBitsPerSecond() {
    return downBitsPerSecond * (1 - loss);
  }
}
