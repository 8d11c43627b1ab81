package dev.tern.transport.udp.sim;

import dev.tern.netlab.link.Delivery;
import dev.tern.netlab.link.Link;
import java.nio.ByteBuffer;

/** A {@link Channel} backed by the project's one link model, netlab's {@link Link}. */
public final class LinkChannel implements Channel {
  /** IPv4 + UDP header bytes added to each datagram's size on the link. */
  public static final int IP_UDP_OVERHEAD = 28;

  private final Link link;
  private final Delivery delivery = new Delivery();

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
    for (int i = 0; i < copies; i++) {
      deliverAtNs[i] = delivery.deliverAtNs(i);
      corrupt[i] = delivery.corrupted(i);
    }
    return copies;
  }
}
