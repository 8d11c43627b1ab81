package dev.tern.transport.udp.sim;

import dev.tern.netlab.link.Delivery;
import dev.tern.netlab.link.Link;
import dev.tern.netlab.link.LinkConfig;
import dev.tern.netlab.link.LinkProfile;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The completion time of a run for a sender that does not know the link's capacity and must
 * discover it: on the same loss-free copies as {@link IdealTransfer}, each direction starts with
 * RFC 9002 §7.2's initial window (10 datagrams of 1,200 bytes: 12,000 bytes) and grows it by
 * every byte acknowledged (slow start, §7.3.1), with no loss ever, and a receiver that
 * acknowledges every packet the instant it arrives (so the window grows as fast as slow start
 * allows). Its only pacing is the project's requirement for every sender (FIELD-NOTES, RFC 9002
 * §7.7): the initial window of each direction is spread over half the handshake's round trip,
 * which both ends know before their first byte of data; everything after it leaves unpaced. Calls are served first come, first served, in full-size packets. Where this exceeds
 * the perfect sender's ideal, the difference is the price of capacity discovery that every
 * congestion-controlled protocol pays, whatever its quality.
 */
final class SlowStartFloor {
  /** RFC 9002 §7.2: min(10 x max_datagram_size, max(14720, 2 x max_datagram_size)) at 1,200. */
  static final long INITIAL_WINDOW_BYTES = 12_000;
  /** Size of an acknowledgement datagram on the wire (ACK frame and headers). */
  static final int ACK_DATAGRAM = 40;

  private final LinkConfig up;
  private final LinkConfig down;
  private final long upSeed;
  private final long downSeed;
  private final Delivery delivery = new Delivery();

  SlowStartFloor(LinkProfile profile, long upSeed, long downSeed) {
    this.up = IdealTransfer.lossFree(profile.clientToServer());
    this.down = IdealTransfer.lossFree(profile.serverToClient());
    this.upSeed = upSeed;
    this.downSeed = downSeed;
  }

  /** The floor, ns from 0, of {@code calls} (sorted by start, as scenarios build them). */
  long of(List<Call> calls) {
    Link hsUp = new Link(up, upSeed, 0);
    long serverHello = send(hsUp, 0, IdealTransfer.HANDSHAKE_DATAGRAM);
    Link hsDown = new Link(down, downSeed, 0);
    long handshakeDone = send(hsDown, serverHello, IdealTransfer.HANDSHAKE_DATAGRAM);
    int n = calls.size();
    long[] release = new long[n];
    long[] bytes = new long[n];
    for (int i = 0; i < n; i++) {
      release[i] = Math.max(calls.get(i).startNs, handshakeDone);
      bytes[i] = calls.get(i).requestBytes;
    }
    long rttNs = handshakeDone;
    long[] requestsIn = pass(hsUp, new Link(down, downSeed, 0), release, bytes, rttNs);
    for (int i = 0; i < n; i++) {
      bytes[i] = Math.max(1, calls.get(i).responseBytes);
    }
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    java.util.Arrays.sort(order, (a, b) -> Long.compare(requestsIn[a], requestsIn[b]));
    long[] rel = new long[n];
    long[] b = new long[n];
    for (int k = 0; k < n; k++) {
      rel[k] = requestsIn[order[k]];
      b[k] = bytes[order[k]];
    }
    long[] done = pass(hsDown, new Link(up, upSeed, 0), rel, b, rttNs);
    long last = handshakeDone;
    for (long d : done) {
      last = Math.max(last, d);
    }
    return last;
  }

  /**
   * One direction: items released at {@code release} (non-decreasing) of {@code bytes} each,
   * sent within a slow-start window over {@code data}, acknowledged over {@code ack}; the first
   * initial window's bytes are spread over {@code rttNs / 2} from the first send.
   *
   * @return when each item's last byte arrived
   */
  private long[] pass(Link data, Link ack, long[] release, long[] bytes, long rttNs) {
    int n = release.length;
    long[] done = new long[n];
    long[] left = bytes.clone();
    PriorityQueue<long[]> acks = new PriorityQueue<>((x, y) -> Long.compare(x[0], y[0]));
    long window = INITIAL_WINDOW_BYTES;
    long inFlight = 0;
    long now = n == 0 ? 0 : release[0];
    int item = 0;
    long lastAckSend = 0;
    long sent = 0;
    long firstSend = -1;
    while (true) {
      while (item < n && release[item] <= now && inFlight < window
          && (firstSend < 0 || paceAt(firstSend, sent, rttNs) <= now)) {
        if (firstSend < 0) {
          firstSend = now;
        }
        int payload = (int) Math.min(IdealTransfer.FULL_PAYLOAD, left[item]);
        left[item] -= payload;
        int wire = payload + LinkChannel.IP_UDP_OVERHEAD;
        long arrives = send(data, now, payload);
        lastAckSend = Math.max(lastAckSend, arrives);
        acks.add(new long[] {send(ack, lastAckSend, ACK_DATAGRAM), wire});
        inFlight += wire;
        sent += wire;
        if (left[item] == 0) {
          done[item] = arrives;
          item++;
        }
      }
      if (item == n) {
        return done;
      }
      long next = Long.MAX_VALUE;
      if (!acks.isEmpty()) {
        next = acks.peek()[0];
      }
      if (release[item] > now) {
        next = Math.min(next, release[item]);
      } else if (inFlight < window && firstSend >= 0) {
        next = Math.min(next, paceAt(firstSend, sent, rttNs));
      }
      now = Math.max(now, next);
      while (!acks.isEmpty() && acks.peek()[0] <= now) {
        long acked = acks.poll()[1];
        inFlight -= acked;
        window += acked; // RFC 9002 §7.3.1: slow start grows by the bytes acknowledged
      }
    }
  }

  /**
   * When the byte at offset {@code sent} of a direction may leave: FIELD-NOTES' pacing of the
   * initial window over half the round trip (RFC 9002 §7.7); no constraint after it.
   */
  private static long paceAt(long firstSend, long sent, long rttNs) {
    if (sent >= INITIAL_WINDOW_BYTES) {
      return firstSend;
    }
    return firstSend + sent * (rttNs / 2) / INITIAL_WINDOW_BYTES;
  }

  private long send(Link link, long atNs, int datagramBytes) {
    int copies = link.send(atNs, datagramBytes + LinkChannel.IP_UDP_OVERHEAD, delivery);
    if (copies != 1) {
      throw new IllegalStateException("a loss-free link dropped or duplicated a packet: " + link);
    }
    return delivery.deliverAtNs(0);
  }
}
