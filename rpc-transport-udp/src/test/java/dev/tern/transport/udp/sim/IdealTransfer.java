package dev.tern.transport.udp.sim;

import dev.tern.netlab.link.Delivery;
import dev.tern.netlab.link.Link;
import dev.tern.netlab.link.LinkConfig;
import dev.tern.netlab.link.LinkProfile;
import dev.tern.netlab.link.TraceSchedule;
import java.util.ArrayList;
import java.util.List;

/**
 * The link's ideal transfer time of a run: what a perfect sender achieves on a loss-free copy of
 * the run's links.
 *
 * <p>The copies keep everything that is not an impairment: the propagation delay, the delay
 * wander (same seed, so the same delays at the same times), the fixed rate or the trace's
 * delivery opportunities from the same epoch (time 0, when the client sends its first
 * datagram). They drop random and bursty loss, reordering, duplication, corruption and the
 * droptail limit. The perfect sender has no per-packet overhead beyond the IP and UDP headers:
 * it packs the application's bytes into 1,500-byte IP packets (1,472 bytes of payload), across
 * calls, and sends them the instant they exist.
 *
 * <p>The interval is the measured one: from time 0 to the delivery of the last response byte.
 * Both contain one handshake round trip: the client's 1,200-byte INITIAL datagram (RFC 9000
 * §14.1) at time 0, the server's 1,200-byte answer as soon as it arrived; no request byte leaves
 * before that answer reached the client. A response cannot start before its whole request
 * arrived (the server application answers a complete request).
 *
 * <p>With several calls the optimal schedule of two links is a scheduling problem, so the ideal
 * is the larger of two lower bounds, each met by a perfect sender in its own relaxation:
 * <ol>
 *   <li>every response is released when its request, sent alone, would have arrived, and all
 *       responses share one downlink copy: its last delivery;</li>
 *   <li>all requests share one uplink copy; after the last of their bytes arrived, at least the
 *       smallest response still crosses the downlink: its delivery.</li>
 * </ol>
 * No real schedule beats either, so a run measured below its ideal is a measurement bug. For one
 * call both are exact.
 */
final class IdealTransfer {
  /** Payload of a full-size packet: a 1,500-byte IP packet less the IPv4 and UDP headers. */
  static final int FULL_PAYLOAD = 1500 - LinkChannel.IP_UDP_OVERHEAD;
  /** The handshake datagrams' size (RFC 9000 §14.1: padded to 1,200 bytes). */
  static final int HANDSHAKE_DATAGRAM = 1200;

  private final LinkConfig up;
  private final LinkConfig down;
  private final long upSeed;
  private final long downSeed;
  private final Delivery delivery = new Delivery();

  /** The ideal of links {@code profile} seeded as the run seeds them. */
  IdealTransfer(LinkProfile profile, long upSeed, long downSeed) {
    this.up = lossFree(profile.clientToServer());
    this.down = lossFree(profile.serverToClient());
    this.upSeed = upSeed;
    this.downSeed = downSeed;
  }

  /** {@code c} without its impairments: no loss, reordering, duplication, corruption or limit. */
  static LinkConfig lossFree(LinkConfig c) {
    return c.toBuilder().loss(0).burstLoss(0, 1).reorder(0, 0).duplicate(0).corrupt(0)
        .queueLimitPackets(0).queueLimitBytes(0).build();
  }

  /** The ideal handshake: the client has the server's answer at this time, ns from 0. */
  long handshakeNs() {
    long serverHello = send(new Link(up, upSeed, 0), 0, HANDSHAKE_DATAGRAM);
    return send(new Link(down, downSeed, 0), serverHello, HANDSHAKE_DATAGRAM);
  }

  /** The ideal time, ns from 0, of {@code calls}. */
  long of(List<Call> calls) {
    Link hsUp = new Link(up, upSeed, 0);
    long serverHello = send(hsUp, 0, HANDSHAKE_DATAGRAM);
    long handshakeDone = send(new Link(down, downSeed, 0), serverHello, HANDSHAKE_DATAGRAM);

    // Bound 1: each request alone; the responses share the downlink.
    int n = calls.size();
    long[] release = new long[n];
    for (int i = 0; i < n; i++) {
      Link u = new Link(up, upSeed, 0);
      send(u, 0, HANDSHAKE_DATAGRAM);
      release[i] = push(u, Math.max(calls.get(i).startNs, handshakeDone),
          calls.get(i).requestBytes);
    }
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    java.util.Arrays.sort(order, (a, b) -> Long.compare(release[a], release[b]));
    Link d = new Link(down, downSeed, 0);
    send(d, serverHello, HANDSHAKE_DATAGRAM);
    long bound1 = handshakeDone;
    for (int k = 0; k < n; ) {
      long at = release[order[k]];
      long bytes = 0;
      while (k < n && release[order[k]] == at) {
        bytes += Math.max(1, calls.get(order[k]).responseBytes); // an empty answer still ends
        k++;
      }
      bound1 = Math.max(bound1, push(d, at, bytes));
    }

    // Bound 2: all requests share the uplink; then the smallest response.
    List<Call> byStart = new ArrayList<>(calls);
    byStart.sort((a, b) -> Long.compare(a.startNs, b.startNs));
    Link u = new Link(up, upSeed, 0);
    send(u, 0, HANDSHAKE_DATAGRAM);
    long allRequests = handshakeDone;
    long smallest = Long.MAX_VALUE;
    for (int k = 0; k < n; ) {
      long at = Math.max(byStart.get(k).startNs, handshakeDone);
      long bytes = 0;
      while (k < n && Math.max(byStart.get(k).startNs, handshakeDone) == at) {
        bytes += byStart.get(k).requestBytes;
        smallest = Math.min(smallest, Math.max(1, byStart.get(k).responseBytes));
        k++;
      }
      allRequests = Math.max(allRequests, push(u, at, bytes));
    }
    long bound2 = handshakeDone;
    if (n > 0) {
      Link d2 = new Link(down, downSeed, 0);
      send(d2, serverHello, HANDSHAKE_DATAGRAM);
      bound2 = push(d2, allRequests, smallest);
    }
    return Math.max(bound1, bound2);
  }

  /**
   * The longest time within [0, {@code untilNs}] during which the client-to-server direction
   * (the server's feedback path: its ACKs and credit) can deliver nothing: a gap between two
   * delivery opportunities of its trace. 0 for a fixed-rate or unlimited link.
   */
  long longestFeedbackOutageNs(long untilNs) {
    TraceSchedule t = up.trace();
    if (t == null || t.size() == 0) {
      return 0;
    }
    long untilMs = untilNs / 1_000_000L + 1;
    long prev = 0;
    long longest = 0;
    for (long cycle = 0; prev <= untilMs; cycle++) {
      for (int i = 0; i < t.size() && prev <= untilMs; i++) {
        long at = cycle * t.periodMs() + t.opportunityMs(i);
        longest = Math.max(longest, Math.min(at, untilMs) - prev);
        prev = Math.max(prev, at);
      }
    }
    return longest * 1_000_000L;
  }

  /** Sends {@code bytes} at {@code atNs} in full-size packets; returns the last delivery. */
  private long push(Link link, long atNs, long bytes) {
    long last = atNs;
    while (bytes > 0) {
      int payload = (int) Math.min(FULL_PAYLOAD, bytes);
      bytes -= payload;
      last = Math.max(last, send(link, atNs, payload));
    }
    return last;
  }

  private long send(Link link, long atNs, int datagramBytes) {
    int copies = link.send(atNs, datagramBytes + LinkChannel.IP_UDP_OVERHEAD, delivery);
    if (copies != 1) {
      throw new IllegalStateException("a loss-free link dropped or duplicated a packet: " + link);
    }
    return delivery.deliverAtNs(0);
  }
}
