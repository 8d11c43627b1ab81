package dev.tern.transport.udp.sim;

import dev.tern.netlab.link.Delivery;
import dev.tern.netlab.link.Link;
import dev.tern.transport.udp.recovery.RttEstimator;
import dev.tern.transport.udp.util.Saturating;
import java.nio.ByteBuffer;

/** A {@link Channel} backed by the project's one link model, netlab's {@link Link}. */
public final class LinkChannel implements Channel {
  /** Copies (docs/protocol.md §4.1) are looked for among this many first datagrams. */
  private static final int COPY_SEARCH = 64;
  /** IPv4 + UDP header bytes added to each datagram's size on the link. */
  public static final int IP_UDP_OVERHEAD = 28;

  private final Link link;
  private final Delivery delivery = new Delivery();
  private long[] sentNs = new long[256];
  private final java.util.BitSet lost = new java.util.BitSet();
  private int sent;
  /** Datagram i's twin (the copy of docs/protocol.md §4.1, or its original), or -1. */
  private int[] twin = new int[256];
  private final int[] hashes = new int[COPY_SEARCH];

  /** A channel over {@code link}. */
  public LinkChannel(Link link) {
    this.link = link;
  }

  /** The underlying link (for its counters). */
  public Link link() {
    return link;
  }

  @Override
  public int transmit(long nowNs, ByteBuffer datagram, long[] deliverAtNs, boolean[] corrupt) {
    int copies = link.send(nowNs, datagram.remaining() + IP_UDP_OVERHEAD, delivery);
    boolean arrives = false;
    for (int i = 0; i < copies; i++) {
      deliverAtNs[i] = delivery.deliverAtNs(i);
      corrupt[i] = delivery.corrupted(i);
      arrives |= !corrupt[i];
    }
    record(nowNs, arrives);
    noteHandshakeCopy(datagram);
    return copies;
  }

  /**
   * Recognises the copies of docs/protocol.md §4.1 (the first handshake datagram and the first
   * with stream data are sent twice, byte for byte, a few ms apart) among the first datagrams:
   * a pair counts as one datagram for the loss figures.
   */
  private void noteHandshakeCopy(ByteBuffer datagram) {
    int i = sent - 1;
    if (twin.length < sent) {
      twin = java.util.Arrays.copyOf(twin, 2 * sent);
    }
    twin[i] = -1;
    if (i >= COPY_SEARCH) {
      return;
    }
    int h = datagram.hashCode() * 31 + datagram.remaining();
    hashes[i] = h;
    for (int j = i - 1; j >= 0; j--) {
      if (hashes[j] == h && twin[j] < 0) {
        twin[i] = j;
        twin[j] = i;
        return;
      }
    }
  }

  /** Whether datagram {@code i}'s loss cost nothing: it is one of a copied pair, the other arrived. */
  private boolean twinArrived(int i) {
    return twin[i] >= 0 && !lost.get(twin[i]);
  }

  private void record(long nowNs, boolean arrives) {
    if (sent == sentNs.length) {
      sentNs = java.util.Arrays.copyOf(sentNs, 2 * sent);
    }
    if (!arrives) {
      lost.set(sent); // dropped, or every copy corrupted (the receiver's checksum drops it)
    }
    sentNs[sent++] = nowNs;
  }

  /** Datagrams lost (dropped, or only corrupted copies) that were sent before {@code ns}. */
  public int lostBefore(long ns) {
    int n = 0;
    for (int i = lost.nextSetBit(0); i >= 0 && sentNs[i] < ns; i = lost.nextSetBit(i + 1)) {
      n++;
    }
    return n;
  }

  /**
   * Datagrams lost before {@code ns} (see {@link #lostBefore}), leaving out a lost handshake
   * datagram whose copy arrived, or a lost copy whose original arrived (docs/protocol.md §4.1):
   * that loss costs at most the copy's delay, not a probe timeout.
   */
  public int lostBeforeUncovered(long ns) {
    int n = 0;
    for (int i = lost.nextSetBit(0); i >= 0 && sentNs[i] < ns; i = lost.nextSetBit(i + 1)) {
      if (!twinArrived(i)) {
        n++;
      }
    }
    return n;
  }

  /**
   * Lost datagrams sent before {@code beforeNs} that only a timer can reveal: no datagram sent
   * after it in this direction within {@code windowNs} arrived, so no acknowledgement of a later
   * packet can show the gap (RFC 9002 §6.1 needs one; otherwise the probe timeout of §6.2 must
   * fire). Losses after the run completed (its last ACKs, its close) cost the run nothing and do
   * not count.
   */
  public int lostWithoutLaterArrival(long windowNs, long beforeNs) {
    int n = 0;
    for (int i = lost.nextSetBit(0); i >= 0 && sentNs[i] < beforeNs; i = lost.nextSetBit(i + 1)) {
      if (timerOnly(i, windowNs)) {
        n++;
      }
    }
    return n;
  }

  private boolean timerOnly(int i, long windowNs) {
    int next = lost.nextClearBit(i + 1);
    return !twinArrived(i) && (next >= sent || sentNs[next] > sentNs[i] + windowNs);
  }

  /** The first probe timeout before any RTT sample (RFC 9002 §6.2.2: 333 ms initial RTT), ns. */
  public static final long INITIAL_PTO_NS = 999_000_000L;
  /** Backoffs counted per episode at most (2^10 probe timeouts). */
  static final int MAX_BACKOFFS = 10;

  /**
   * What the probe timeouts of the losses only a timer can reveal (sent from {@code fromNs} to
   * {@code beforeNs}; see {@link #lostWithoutLaterArrival}) may cost a correct sender, ns: per
   * episode (such losses with no arrival between them), one probe timeout {@code ptoNs} for its
   * first burst and twice the previous one for each later burst (a probe lost in its turn: RFC
   * 9002 §6.2.1's backoff), a burst being losses less than {@code windowNs} apart.
   */
  public long timerOnlyAllowanceNs(long windowNs, long fromNs, long beforeNs, long ptoNs) {
    long total = 0;
    int episodeEnd = -1;
    int bursts = 0;
    long lastSentNs = 0;
    long pto = Math.max(ptoNs, RttEstimator.GRANULARITY_NS);
    for (int i = lost.nextSetBit(0); i >= 0 && sentNs[i] < beforeNs; i = lost.nextSetBit(i + 1)) {
      if (sentNs[i] < fromNs || !timerOnly(i, windowNs)) {
        continue;
      }
      int next = lost.nextClearBit(i + 1);
      if (next != episodeEnd) {
        total = Saturating.add(total, backoffs(pto, bursts));
        episodeEnd = next;
        bursts = 1;
      } else if (sentNs[i] - lastSentNs >= windowNs) {
        bursts++;
      }
      lastSentNs = sentNs[i];
    }
    return Saturating.add(total, backoffs(pto, bursts));
  }

  /** Send times of the datagrams lost before {@code ns} whose copy did not arrive, in order. */
  public long[] uncoveredLossTimesBefore(long ns) {
    long[] t = new long[lostBeforeUncovered(ns)];
    int n = 0;
    for (int i = lost.nextSetBit(0); i >= 0 && sentNs[i] < ns; i = lost.nextSetBit(i + 1)) {
      if (!twinArrived(i)) {
        t[n++] = sentNs[i];
      }
    }
    return t;
  }

  /**
   * What the handshake's losses may cost, ns: before the first RTT sample every probe timeout is
   * {@link #INITIAL_PTO_NS} and doubles with each probe that goes unanswered (RFC 9002 §6.2.1,
   * §6.2.2), and a loss in either direction leaves the client unanswered; so each round of losses
   * (both directions' losses before the handshake completed, {@code lossTimes}, merged, rounds
   * {@code windowNs} apart) doubles the wait: {@code INITIAL_PTO_NS x (2^rounds - 1)}.
   */
  public static long handshakeAllowanceNs(long windowNs, long[] up, long[] down) {
    long[] all = java.util.Arrays.copyOf(up, up.length + down.length);
    System.arraycopy(down, 0, all, up.length, down.length);
    java.util.Arrays.sort(all);
    int rounds = 0;
    long last = 0;
    for (int i = 0; i < all.length; i++) {
      if (i == 0 || all[i] - last >= windowNs) {
        rounds++;
      }
      last = all[i];
    }
    return backoffs(INITIAL_PTO_NS, rounds);
  }

  private static long backoffs(long ptoNs, int bursts) {
    return bursts == 0 ? 0 : Saturating.mul(ptoNs, (1L << Math.min(bursts, MAX_BACKOFFS)) - 1);
  }
}
