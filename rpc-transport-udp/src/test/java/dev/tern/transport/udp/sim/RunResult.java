package dev.tern.transport.udp.sim;

/** The outcome of one simulated run. */
public final class RunResult {
  /** The run's seed (reproduces it). */
  public long seed;
  /** The link profile. */
  public String profile;
  /** The scenario. */
  public Scenario scenario;
  /** Null if every byte arrived once, in order, and both ends ended empty; else why not. */
  public String failure;
  /** Virtual time at which the last call completed, ns (-1 if not all did). */
  public long completionNs = -1;
  /** The link's ideal for this workload, ns. */
  public long idealNs;
  /**
   * The longest outage of the client-to-server direction (no delivery opportunity of its trace)
   * within 3x the ideal, ns; 0 on fixed-rate links.
   */
  public long feedbackOutageNs;
  /**
   * The run's time for a loss-free sender that must discover the capacity by slow start from
   * RFC 9002's initial window ({@link SlowStartFloor}), ns.
   */
  public long slowStartFloorNs;
  /** Datagrams lost (either direction) before the client completed its handshake. */
  public int handshakeLosses;
  /** Lost datagrams (either direction) no later arrival could reveal: only a timer can. */
  public int timerOnlyLosses;
  /**
   * What the probe timeouts of the run's handshake and timer-only losses may cost a correct
   * sender, ns ({@link LinkChannel#timerOnlyAllowanceNs}): added to the bound of a run exempt
   * for such losses.
   */
  public long lossAllowanceNs;
  /** The ideal handshake round trip of the run's link, ns. */
  public long handshakeRoundTripNs;
  /** The most connections the server held at once. */
  public int maxServerConnections;
  /** How often the server followed the client to a new path. */
  public long clientPathChanges;
  /** Of the server's path changes, those validated by PATH_RESPONSE. */
  public long serverPathsValidated;
  /** Of those, the ones that reset the server's RTT estimate and controller (another host). */
  public long serverPathResets;
  /** The server's min RTT at the end of the run, ns (Long.MAX_VALUE: no sample). */
  public long serverMinRttNs = Long.MAX_VALUE;
  /**
   * Times the server sent to a path it had not validated more than three times the bytes that
   * came from it (RFC 9000 §8.1, §9.3); a run with any fails.
   */
  public long pathAmplificationViolations;
  /** Bytes the server sent to paths it had moved to before validating them. */
  public long bytesToUnvalidatedPaths;
  /** Times the simulator found a timer at or before now that did nothing, a thousand times over. */
  public long simulatorSpins;
  /** Datagrams the server held back for a path's 3x budget (ConnectionStats). */
  public long serverPathBudgetHolds;
  /** For an adversarial profile: the attack, its base link and what it did; else null. */
  public String adversary;
  /**
   * For a run whose client changes paths (NAT rebinding, a moving client): what those changes may
   * cost a correct protocol, ns, added to its bound ({@link Adversaries}); 0 otherwise.
   */
  public long pathChangeAllowanceNs;

  /** The most bytes the client released at one instant (datagrams sent together). */
  public long maxBurstUpBytes;
  /** The most bytes the server released at one instant. */
  public long maxBurstDownBytes;
  /** Whether the client-to-server direction has a rate limit (a bottleneck to pace for). */
  public boolean upBottleneck;
  /** Whether the server-to-client direction has a rate limit. */
  public boolean downBottleneck;

  /**
   * The largest burst a sender may release towards a bottleneck: RFC 9002 §7.7 limits bursts to
   * the initial congestion window (§7.2), 14,720 bytes for the 1,472-byte datagrams PMTU
   * discovery may reach.
   */
  public static final long BURST_LIMIT_BYTES = 14_720;

  /** Whether a sender released more than {@link #BURST_LIMIT_BYTES} at once towards a bottleneck. */
  public boolean burstOverLimit() {
    return (upBottleneck && maxBurstUpBytes > BURST_LIMIT_BYTES)
        || (downBottleneck && maxBurstDownBytes > BURST_LIMIT_BYTES);
  }
  /** The largest probe timeout (RFC 9002 §6.2.1) either end's RTT estimate gave, ns. */
  public long maxPtoNs;
  /** Completion time of each call, ns from its start (-1 if not completed). */
  public long[] callLatencyNs = new long[0];
  /** Response bytes delivered. */
  public long responseBytes;
  /** Packets retransmitting stream data, both ends. */
  public long retransmittedPackets;
  /** Packets declared lost, both ends. */
  public long lostPackets;
  /** Of those, declared later than RFC 9002 §6.1 makes them due, both ends. */
  public long lateLossDeclarations;
  /** Packets the link dropped, both directions. */
  public long linkDrops;
  /** Probe timeouts, both ends. */
  public long ptos;
  /** Packets the receivers dropped because they did not open (corrupted in transit). */
  public long corruptDropped;

  /** Whether the run delivered everything correctly (the time bound is separate). */
  public boolean ok() {
    return failure == null;
  }

  /**
   * A run whose ideal is 0 (a link with neither delay nor rate limit, every call at time 0)
   * has no ratio; it must instead finish within RFC 9002 §6.1.2's timer granularity, 1 ms: a
   * run that waited for any timer of the protocol (an ACK delay, a probe) does not.
   */
  public static final long ZERO_IDEAL_BOUND_NS = 1_000_000L;

  /** Completion over ideal; NaN when the ideal is 0 (see {@link #ZERO_IDEAL_BOUND_NS}). */
  public double ratio() {
    if (completionNs < 0) {
      return Double.POSITIVE_INFINITY;
    }
    return idealNs == 0 ? Double.NaN : (double) completionNs / idealNs;
  }

  /**
   * Why the time bound is not asserted on this run, or null when it is (see
   * docs/udp-simulator.md): a handshake datagram was lost (before any RTT sample the first
   * probe timeout is 999 ms, RFC 9002 §6.2.2's 333 ms initial RTT), a lost datagram had no later
   * arrival in its direction within a round trip (only the probe timer of RFC 9002 §6.2 can
   * reveal it), or the feedback path was out for longer than the whole ideal (an ACK-clocked
   * sender idles while its window waits for ACKs that cannot arrive; the perfect sender needs
   * none), provided the run stays within 3x its {@link #slowStartFloorNs}, whose ACKs cross the
   * same outage. Losses that a later arrival reveals (RFC 9002 §6.1) exempt nothing. A run over 3x its
   * ideal but within 3x its {@link #slowStartFloorNs} is exempt as "capacity-probing": the
   * excess is what discovering the capacity from the initial window costs any sender.
   */
  public String boundExemption() {
    if (pathChangeAllowanceNs > 0) {
      return "path-change";
    }
    if (handshakeLosses > 0) {
      return "handshake-loss";
    }
    if (timerOnlyLosses > 0) {
      return "timer-only-loss";
    }
    boolean withinFloor = completionNs >= 0
        && completionNs <= Campaign.TIME_BOUND_RATIO * slowStartFloorNs;
    if (idealNs > 0 && feedbackOutageNs >= idealNs && withinFloor) {
      return "feedback-outage"; // the floor's ACKs cross the same outage
    }
    if (completionNs > Campaign.TIME_BOUND_RATIO * idealNs && withinFloor) {
      return "capacity-probing";
    }
    return null;
  }

  /**
   * The time this run is held to, ns. Every run has one: {@link Campaign#TIME_BOUND_RATIO} x its
   * ideal (1 ms for an ideal of 0), or for an exempt run what its reason allows: 3x its slow-start
   * floor for a feedback outage or capacity probing; for a handshake or timer-only loss, the
   * larger of 3x the ideal and 3x the floor plus the probe timeouts and backoffs those losses
   * justify ({@link #lossAllowanceNs}).
   */
  public long boundNs() {
    long ideal = idealNs == 0 ? ZERO_IDEAL_BOUND_NS
        : (long) Math.min(Long.MAX_VALUE / 2, Campaign.TIME_BOUND_RATIO * idealNs);
    String why = boundExemption();
    if (why == null) {
      return ideal;
    }
    long floor = (long) Math.min(Long.MAX_VALUE / 2, Campaign.TIME_BOUND_RATIO * slowStartFloorNs);
    if (why.equals("handshake-loss") || why.equals("timer-only-loss")) {
      return dev.tern.transport.udp.util.Saturating.add(Math.max(ideal, floor), lossAllowanceNs);
    }
    if (why.equals("path-change")) {
      return dev.tern.transport.udp.util.Saturating.add(Math.max(ideal, floor),
          dev.tern.transport.udp.util.Saturating.add(lossAllowanceNs, pathChangeAllowanceNs));
    }
    return floor;
  }

  /** Whether the run completed within its {@link #boundNs}. */
  public boolean withinBound() {
    return completionNs >= 0 && completionNs <= boundNs();
  }

  /** Completion over the run's own {@link #boundNs} (above 1: a violation). */
  public double boundRatio() {
    return completionNs < 0 ? Double.POSITIVE_INFINITY : (double) completionNs / boundNs();
  }

  /** Whether the run completed within {@code ratio} x its ideal (or 1 ms for an ideal of 0). */
  public boolean withinTimeBound(double ratio) {
    if (completionNs < 0) {
      return false;
    }
    return idealNs == 0 ? completionNs <= ZERO_IDEAL_BOUND_NS : completionNs <= ratio * idealNs;
  }

  /** Goodput of the responses, bits per second. */
  public double goodputBitsPerSecond() {
    return completionNs <= 0 ? 0 : responseBytes * 8e9 / completionNs;
  }

  /** One line describing the run. */
  public String line() {
    return String.format("seed=%d profile=%s scenario=%s %s completion=%.1fms ideal=%.1fms "
        + "ratio=%.2f bound=%s ssFloor=%.1fms feedbackOutage=%.0fms hsLost=%d "
        + "timerOnlyLost=%d allowance=%.0fms maxPto=%.0fms burst=%d/%dB goodput=%.0fkbit/s retx=%d lost=%d "
        + "lateLost=%d pto=%d linkDrops=%d corruptDropped=%d",
        seed, profile, scenario.name().toLowerCase(java.util.Locale.ROOT),
        failure == null ? "OK" : "FAIL(" + failure + ")", completionNs / 1e6, idealNs / 1e6,
        ratio(), boundVerdict(), slowStartFloorNs / 1e6, feedbackOutageNs / 1e6,
        handshakeLosses, timerOnlyLosses, lossAllowanceNs / 1e6, maxPtoNs / 1e6, maxBurstUpBytes, maxBurstDownBytes,
        goodputBitsPerSecond() / 1e3, retransmittedPackets,
        lostPackets, lateLossDeclarations, ptos, linkDrops, corruptDropped)
        + (adversary == null ? "" : " adversary=" + adversary);
  }

  private String boundVerdict() {
    String exemption = boundExemption();
    String verdict = withinBound() ? "met" : "VIOLATED";
    return exemption == null ? verdict
        : String.format("exempt:%s(%.0fms,%s)", exemption, boundNs() / 1e6, verdict);
  }
}
