package dev.tern.transport.udp.path;

/**
 * Datagram Packetization Layer PMTU Discovery (DPLPMTUD, RFC 8899) as a sans-IO state machine.
 * The connection sends ordinary packets of {@link #maxDatagramSize()} bytes and, when
 * {@link #probeSize(long)} names a size, one padded ack-eliciting probe of exactly that size; it
 * reports the probe's packet number, and tells this class about acknowledged and lost packets.
 *
 * <p>The search starts from 1350 bytes, which reaches 95-98% of mobile clients, and climbs a
 * ladder of 1400, 1452 (IPv6 over a 1500-byte MTU) and 1472 (IPv4 over 1500) up to the local
 * maximum: a 1500-byte path reaches its largest size in three probes. A probe size fails after
 * {@link #MAX_PROBES} losses (RFC 8899 §5.1.2). Lost probes are not congestion signals
 * (RFC 8899 §3 item 7, §4.4): {@link #onPacketLost} answers whether the connection must keep a
 * loss from its congestion controller. Repeated loss of full-size packets while nothing larger than
 * the base size gets through is taken as a black hole (RFC 8899 §4.3): the size falls back to
 * {@link #BASE_PLPMTU} and the search starts again. The size never goes below 1200.
 */
public final class MtuDiscovery {
  /** RFC 8899 §5.1.2 BASE_PLPMTU for QUIC-like transports (RFC 9000 §14). */
  public static final int BASE_PLPMTU = 1200;
  /** RFC 9000 §18.2: the largest max_udp_payload_size, 65527 bytes. */
  public static final int MAX_UDP_PAYLOAD = 65_527;
  /** The size the connection starts with (FIELD-NOTES: reaches 95-98% of mobile clients). */
  public static final int INITIAL_PLPMTU = 1350;
  /** RFC 8899 §5.1.2: MAX_PROBES. */
  public static final int MAX_PROBES = 3;
  /** Full-size packets lost with nothing above the base size acknowledged after them. */
  public static final int BLACK_HOLE_LOSSES = 3;
  /** RFC 8899 §5.1.1: PMTU_RAISE_TIMER, 600 s, before searching again after completion. */
  public static final long RAISE_INTERVAL_NS = 600_000_000_000L;

  private static final int[] LADDER = {INITIAL_PLPMTU, 1400, 1452, 1472};
  private static final long NONE = -1;

  /** RFC 8899 §5.2 states. */
  public enum State {
    /** Probing larger sizes. */
    SEARCHING,
    /** The largest size that works is known; waiting for the raise timer. */
    SEARCH_COMPLETE,
    /** A black hole was detected; back at the base size. */
    BASE
  }

  private int maxPlpmtu;
  private final long raiseIntervalNs;
  private int plpmtu;
  private State state = State.SEARCHING;
  private int probeSize;
  private long probePn = NONE;
  private int probeLosses;
  private long nextProbeNs;
  private long largestAckedLargePn = NONE;
  private int suspectLosses;
  private long probesSent;
  private long blackHoles;

  /** Discovery for a path whose local maximum UDP payload is {@code maxPlpmtu} bytes. */
  public MtuDiscovery(int maxPlpmtu) {
    this(INITIAL_PLPMTU, maxPlpmtu, RAISE_INTERVAL_NS);
  }

  /**
   * Discovery starting at {@code startPlpmtu} (capped at the maximum) with a raise interval
   * other than RFC 8899's 600 s (configuration, tests).
   */
  public MtuDiscovery(int startPlpmtu, int maxPlpmtu, long raiseIntervalNs) {
    if (maxPlpmtu < BASE_PLPMTU || maxPlpmtu > 65_527) {
      throw new IllegalArgumentException("maxPlpmtu must be in 1200..65527, was " + maxPlpmtu);
    }
    if (startPlpmtu < BASE_PLPMTU) {
      throw new IllegalArgumentException("startPlpmtu must be at least 1200, was " + startPlpmtu);
    }
    if (raiseIntervalNs <= 0) {
      throw new IllegalArgumentException("raiseIntervalNs must be positive, was " + raiseIntervalNs);
    }
    this.maxPlpmtu = maxPlpmtu;
    this.raiseIntervalNs = raiseIntervalNs;
    this.plpmtu = Math.min(startPlpmtu, maxPlpmtu);
    startSearch(Long.MIN_VALUE);
  }

  /** The size of ordinary packets now, bytes of UDP payload. */
  /**
   * Lowers the largest size searched for, and the size in use if larger, to {@code bytes}: the
   * peer's max_udp_payload_size (RFC 9000 §18.2: the peer will not process larger datagrams;
   * RFC 8899 §5.1.2: the PLPMTU never exceeds what the remote endpoint accepts). An outstanding
   * probe above it is forgotten. Values below the base PLPMTU are raised to it (the transport
   * parameter is invalid below 1200).
   */
  public void capAt(int bytes) {
    int cap = Math.max(BASE_PLPMTU, bytes);
    if (cap >= maxPlpmtu) {
      return;
    }
    maxPlpmtu = cap;
    plpmtu = Math.min(plpmtu, cap);
    if (probeSize > cap) {
      probePn = NONE;
      probeLosses = 0;
      probeSize = nextSizeAbove(plpmtu);
      if (probeSize == 0) {
        state = State.SEARCH_COMPLETE;
      }
    }
  }

  public int maxDatagramSize() {
    return plpmtu;
  }

  /** The search state. */
  public State state() {
    return state;
  }

  /**
   * The size of the probe to send now, or 0 if none is due (one probe at a time, RFC 8899
   * §5.1.2; after completion, only when the raise timer expires).
   */
  public int probeSize(long nowNs) {
    if (probePn != NONE || probeSize == 0 || nowNs < nextProbeNs) {
      return 0;
    }
    return probeSize;
  }

  /** When a probe becomes due, for the connection's timer; {@code Long.MAX_VALUE} if none. */
  public long nextProbeTimeNs() {
    return probePn != NONE || probeSize == 0 ? Long.MAX_VALUE : nextProbeNs;
  }

  /** The probe returned by {@link #probeSize} went out as packet {@code packetNumber}. */
  public void onProbeSent(long packetNumber, long nowNs) {
    probePn = packetNumber;
    probesSent++;
  }

  /** A packet of {@code bytes} was acknowledged. */
  public void onPacketAcked(long packetNumber, int bytes, long nowNs) {
    if (bytes > BASE_PLPMTU && packetNumber > largestAckedLargePn) {
      largestAckedLargePn = packetNumber;
      suspectLosses = 0;
    }
    if (packetNumber != probePn) {
      return;
    }
    // RFC 8899 §5.2: a confirmed probe raises the PLPMTU and the search moves on.
    probePn = NONE;
    plpmtu = probeSize;
    probeLosses = 0;
    nextRung(nowNs);
  }

  /**
   * A packet of {@code bytes} was declared lost. Returns true if it was a probe: the connection
   * must then not report the loss to its congestion controller (RFC 8899 §4.4).
   */
  public boolean onPacketLost(long packetNumber, int bytes, long nowNs) {
    if (packetNumber == probePn) {
      probePn = NONE;
      if (++probeLosses >= MAX_PROBES) {
        // RFC 8899 §5.2: this size does not fit; the current PLPMTU is the answer.
        complete(nowNs);
      }
      return true;
    }
    // RFC 8899 §4.3: full-size packets keep vanishing while nothing sent after them that was
    // larger than the base size is acknowledged. Random loss is found by later acknowledgements
    // and never counts here.
    if (bytes > BASE_PLPMTU && plpmtu > BASE_PLPMTU && packetNumber > largestAckedLargePn
        && ++suspectLosses >= BLACK_HOLE_LOSSES) {
      fallBack(nowNs);
    }
    return false;
  }

  /**
   * The connection's probe timer fired for the {@code consecutive}-th time without an
   * acknowledgement. When full-size packets vanish entirely, no acknowledgement ever declares them
   * lost; two probe timeouts in a row are then taken as a black hole (RFC 8899 §4.3), so that the
   * timeout's own probes, sent at the base size, can get through.
   */
  public void onProbeTimeout(long nowNs, int consecutive) {
    if (consecutive >= 2 && plpmtu > BASE_PLPMTU) {
      fallBack(nowNs);
    }
  }

  private void fallBack(long nowNs) {
    blackHoles++;
    plpmtu = BASE_PLPMTU;
    suspectLosses = 0;
    probePn = NONE;
    state = State.BASE;
    probeLosses = 0;
    nextProbeNs = nowNs;
    probeSize = nextSizeAbove(plpmtu);
  }

  /** Probes sent so far. */
  public long probesSent() {
    return probesSent;
  }

  /** Black holes detected so far. */
  public long blackHolesDetected() {
    return blackHoles;
  }

  private void startSearch(long nowNs) {
    probeLosses = 0;
    nextProbeNs = nowNs;
    probeSize = nextSizeAbove(plpmtu);
    if (probeSize == 0) {
      complete(nowNs);
    }
  }

  private void nextRung(long nowNs) {
    state = State.SEARCHING;
    startSearch(nowNs);
  }

  /** The next candidate above {@code size}: the ladder, then the local maximum; 0 if none. */
  private int nextSizeAbove(int size) {
    for (int rung : LADDER) {
      if (rung > size && rung <= maxPlpmtu) {
        return rung;
      }
    }
    // Beyond the Ethernet ladder (jumbo frames): one step to the local maximum.
    return maxPlpmtu > size ? maxPlpmtu : 0;
  }

  private void complete(long nowNs) {
    state = State.SEARCH_COMPLETE;
    // RFC 8899 §5.1.1: search again after PMTU_RAISE_TIMER in case the path improved.
    probeSize = nextSizeAbove(plpmtu);
    probeLosses = 0;
    nextProbeNs = nowNs + raiseIntervalNs;
  }
}
