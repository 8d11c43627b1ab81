package dev.tern.transport.udp.nio;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.spi.DatagramImpairment;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The socket-level impairment: what it drops, repeats, holds back and delays, by its seed. */
class ImpairerTest {
  private static final SocketAddress PEER = new InetSocketAddress("127.0.0.1", 9);

  /** Records what passes, as the endpoint would see it. */
  private static final class Recorder implements Impairer.Endpoint {
    final List<Integer> delivered = new ArrayList<>();
    final List<Long> deliveredAt = new ArrayList<>();
    final List<Integer> copies = new ArrayList<>();

    @Override
    public void deliver(ByteBuffer datagram, SocketAddress from, long nowNs) {
      assertThat(from).isEqualTo(PEER);
      delivered.add(datagram.getInt(datagram.position()));
      deliveredAt.add(nowNs);
      datagram.putInt(datagram.position(), -1); // the core decrypts in place
    }

    @Override
    public void sendCopy(ByteBuffer datagram, SocketAddress to) {
      assertThat(to).isEqualTo(PEER);
      copies.add(datagram.getInt(datagram.position()));
    }
  }

  private static ByteBuffer datagram(int n) {
    ByteBuffer b = ByteBuffer.allocate(1200);
    b.putInt(0, n);
    return b;
  }

  @Test
  void lossDropsAboutItsShareAndTheRestArriveInOrder() throws Exception {
    Impairer imp = new Impairer(DatagramImpairment.loss(0.05, 7));
    Recorder r = new Recorder();
    for (int i = 0; i < 10_000; i++) {
      imp.inbound(datagram(i), PEER, 0, r);
    }
    assertThat(imp.dropped()).isBetween(400L, 600L);
    assertThat(r.delivered).hasSize(10_000 - (int) imp.dropped()).isSorted();
  }

  @Test
  void theSameSeedMakesTheSameDecisions() throws Exception {
    Recorder a = new Recorder();
    Recorder b = new Recorder();
    Impairer ia = new Impairer(DatagramImpairment.of(0.1, 0.1, 0.1, 42));
    Impairer ib = new Impairer(DatagramImpairment.of(0.1, 0.1, 0.1, 42));
    for (int i = 0; i < 1000; i++) {
      ia.inbound(datagram(i), PEER, 0, a);
      ib.inbound(datagram(i), PEER, 0, b);
    }
    assertThat(a.delivered).isEqualTo(b.delivered);
  }

  @Test
  void reorderingHoldsADatagramBehindTheNextAndDuplicatesArriveTwiceIntact() throws Exception {
    Impairer imp = new Impairer(DatagramImpairment.of(0, 0.2, 0.2, 3));
    Recorder r = new Recorder();
    for (int i = 0; i < 1000; i++) {
      imp.inbound(datagram(i), PEER, 0, r);
    }
    assertThat(imp.reordered()).isPositive();
    assertThat(imp.duplicated()).isPositive();
    assertThat(r.delivered).doesNotContain(-1); // each delivery had bytes of its own
    // Nothing is lost: every datagram arrived (but one still held back at the end, perhaps),
    // the duplicates twice, and some after their successor.
    long distinct = r.delivered.stream().distinct().count();
    assertThat(distinct).isBetween(999L, 1000L);
    assertThat(r.delivered).hasSize((int) (distinct + imp.duplicated()));
    int inversions = 0;
    for (int i = 1; i < r.delivered.size(); i++) {
      if (r.delivered.get(i) < r.delivered.get(i - 1)) {
        inversions++;
      }
    }
    assertThat(inversions).isPositive();
  }

  @Test
  void outboundDropsAndHoldsBackAndTheHeldOneFollowsTheNext() {
    Impairer imp = new Impairer(DatagramImpairment.of(0.1, 0.1, 0.1, 11));
    Recorder r = new Recorder();
    List<Integer> sent = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      ByteBuffer d = datagram(i);
      if (!imp.outbound(d, PEER, r)) {
        sent.add(i);
        imp.afterSent(r);
      }
    }
    assertThat(imp.dropped()).isBetween(60L, 140L);
    assertThat(imp.reordered()).isPositive();
    assertThat(imp.duplicated()).isPositive();
    // What left, sent or copied: each datagram not dropped once (but one still held back at the
    // end, perhaps), the duplicates twice.
    List<Integer> left = new ArrayList<>(sent);
    left.addAll(r.copies);
    long distinct = left.stream().distinct().count();
    assertThat(distinct).isBetween(999 - imp.dropped(), 1000 - imp.dropped());
    assertThat(left).hasSize((int) (distinct + imp.duplicated()));
  }

  @Test
  void aDelayHoldsEveryReceivedDatagramUntilItIsDue() throws Exception {
    Impairer imp = new Impairer(DatagramImpairment.loss(0, 1).withInboundDelayMillis(50));
    Recorder r = new Recorder();
    imp.inbound(datagram(1), PEER, 1_000_000_000L, r);
    imp.inbound(datagram(2), PEER, 1_010_000_000L, r);
    assertThat(r.delivered).isEmpty();
    assertThat(imp.nextReleaseNs()).isEqualTo(1_050_000_000L);
    imp.releaseDue(1_049_999_999L, r);
    assertThat(r.delivered).isEmpty();
    imp.releaseDue(1_050_000_000L, r);
    assertThat(r.delivered).containsExactly(1);
    assertThat(imp.nextReleaseNs()).isEqualTo(1_060_000_000L);
    imp.releaseDue(2_000_000_000L, r);
    assertThat(r.delivered).containsExactly(1, 2);
    assertThat(imp.nextReleaseNs()).isEqualTo(Long.MAX_VALUE);
  }
}
