package dev.tern.transport.udp.nio;

import dev.tern.rpc.spi.DatagramImpairment;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.SplittableRandom;

/**
 * Drops, duplicates, reorders and delays an endpoint's datagrams on its real socket, as a
 * {@link DatagramImpairment} says: test-only, the way in is the transport option
 * {@code UdpTransportOptions.IMPAIRMENT}. Inbound datagrams are impaired before the core sees
 * them, outbound ones after the core wrote them, so both directions of every connection of the
 * endpoint suffer it. Decisions come from one generator seeded by the impairment, on the loop
 * thread.
 *
 * <p>Not on any production path: with no impairment the endpoints never create one. The copies it
 * keeps (a datagram held back for reordering, the delayed ones) come from a small pool.
 */
final class Impairer {
  /** What an endpoint does with the datagrams the impairer lets through. */
  interface Endpoint {
    /** Hands an inbound datagram to the core, as if just received from {@code from}. */
    void deliver(ByteBuffer datagram, SocketAddress from, long nowNs) throws IOException;

    /** Sends a copy of an outbound datagram to {@code to}, best effort (a full socket drops it). */
    void sendCopy(ByteBuffer datagram, SocketAddress to);
  }

  /** One datagram kept back, with its peer and, if delayed, its release time. */
  private static final class Held {
    ByteBuffer bytes = ByteBuffer.allocate(2048);
    SocketAddress peer;
    long releaseNs;

    Held fill(ByteBuffer datagram, SocketAddress peer, long releaseNs) {
      if (bytes.capacity() < datagram.remaining()) {
        bytes = ByteBuffer.allocate(datagram.remaining());
      }
      ((Buffer) bytes).clear();
      ((Buffer) bytes.put(datagram.duplicate())).flip();
      this.peer = peer;
      this.releaseNs = releaseNs;
      return this;
    }
  }

  private final DatagramImpairment spec;
  private final SplittableRandom random;
  private final long delayNs;
  private final ArrayDeque<Held> pool = new ArrayDeque<>();
  private final ArrayDeque<Held> delayed = new ArrayDeque<>();
  /** Scratch for an inbound duplicate: the core decrypts in place, so each delivery needs a copy. */
  private ByteBuffer copy = ByteBuffer.allocate(2048);
  private Held heldInbound;
  private Held heldOutbound;
  private long dropped;
  private long duplicated;
  private long reordered;

  Impairer(DatagramImpairment spec) {
    this.spec = spec;
    this.random = new SplittableRandom(spec.seed());
    this.delayNs = spec.inboundDelayMillis() * 1_000_000L;
  }

  /** Datagrams dropped so far, both directions. */
  long dropped() {
    return dropped;
  }

  /** Datagrams sent or delivered twice so far, both directions. */
  long duplicated() {
    return duplicated;
  }

  /** Datagrams held back behind the next one so far, both directions. */
  long reordered() {
    return reordered;
  }

  /** An inbound datagram: delayed, or impaired at once. */
  void inbound(ByteBuffer datagram, SocketAddress from, long nowNs, Endpoint endpoint)
      throws IOException {
    if (delayNs > 0) {
      delayed.add(take().fill(datagram, from, nowNs + delayNs));
      return;
    }
    impairInbound(datagram, from, nowNs, endpoint);
  }

  /** Releases the delayed datagrams due by {@code nowNs}, in the order they came. */
  void releaseDue(long nowNs, Endpoint endpoint) throws IOException {
    Held h;
    while ((h = delayed.peek()) != null && h.releaseNs - nowNs <= 0) {
      delayed.poll();
      try {
        impairInbound(h.bytes, h.peer, nowNs, endpoint);
      } finally {
        pool.add(h);
      }
    }
  }

  /** When the next delayed datagram is due, or Long.MAX_VALUE with none. */
  long nextReleaseNs() {
    Held h = delayed.peek();
    return h == null ? Long.MAX_VALUE : h.releaseNs;
  }

  private void impairInbound(ByteBuffer datagram, SocketAddress from, long nowNs,
      Endpoint endpoint) throws IOException {
    if (random.nextDouble() < spec.lossRate()) {
      dropped++;
      return;
    }
    if (heldInbound == null && random.nextDouble() < spec.reorderRate()) {
      reordered++;
      heldInbound = take().fill(datagram, from, 0);
      return;
    }
    if (random.nextDouble() < spec.duplicateRate()) {
      duplicated++;
      if (copy.capacity() < datagram.remaining()) {
        copy = ByteBuffer.allocate(datagram.remaining());
      }
      ((Buffer) copy).clear();
      ((Buffer) copy.put(datagram.duplicate())).flip();
      endpoint.deliver(copy, from, nowNs);
    }
    endpoint.deliver(datagram, from, nowNs);
    if (heldInbound != null) {
      Held late = heldInbound;
      heldInbound = null;
      try {
        endpoint.deliver(late.bytes, late.peer, nowNs);
      } finally {
        pool.add(late);
      }
    }
  }

  /**
   * An outbound datagram, before it is sent: true if the impairer took it (dropped, or held back
   * behind the next one), false if the endpoint sends it as usual (a duplicate already went).
   */
  boolean outbound(ByteBuffer datagram, SocketAddress to, Endpoint endpoint) {
    if (random.nextDouble() < spec.lossRate()) {
      dropped++;
      return true;
    }
    if (heldOutbound == null && random.nextDouble() < spec.reorderRate()) {
      reordered++;
      heldOutbound = take().fill(datagram, to, 0);
      return true;
    }
    if (random.nextDouble() < spec.duplicateRate()) {
      duplicated++;
      endpoint.sendCopy(datagram.duplicate(), to);
    }
    return false;
  }

  /** After an outbound datagram was sent: the one held back behind it follows. */
  void afterSent(Endpoint endpoint) {
    if (heldOutbound != null) {
      Held late = heldOutbound;
      heldOutbound = null;
      endpoint.sendCopy(late.bytes, late.peer);
      pool.add(late);
    }
  }

  private Held take() {
    Held h = pool.poll();
    return h != null ? h : new Held();
  }
}
