package dev.tern.transport.quic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.rpc.spi.DatagramImpairment;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.DatagramPacket;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ImpairmentHandlerTest {
  private static final InetSocketAddress A = new InetSocketAddress("127.0.0.1", 1000);
  private static final InetSocketAddress B = new InetSocketAddress("127.0.0.1", 2000);

  private static List<Integer> deliver(DatagramImpairment spec, int count) {
    EmbeddedChannel ch = new EmbeddedChannel(new ImpairmentHandler(spec));
    for (int i = 0; i < count; i++) {
      ch.writeInbound(new DatagramPacket(Unpooled.buffer(4).writeInt(i), B, A));
    }
    List<Integer> out = new ArrayList<>();
    for (DatagramPacket p; (p = ch.readInbound()) != null; ) {
      out.add(p.content().getInt(0));
      p.release();
    }
    ch.finishAndReleaseAll();
    return out;
  }

  @Test
  void dropsAboutTheConfiguredShareAndRepeatsForTheSameSeed() {
    List<Integer> first = deliver(DatagramImpairment.loss(0.05, 7), 10_000);
    assertThat(first.size()).isBetween(9_400, 9_600);
    assertThat(deliver(DatagramImpairment.loss(0.05, 7), 10_000)).isEqualTo(first);
    assertThat(deliver(DatagramImpairment.loss(0.05, 8), 10_000)).isNotEqualTo(first);
  }

  @Test
  void duplicatesAndReordersWithoutLosingAny() {
    List<Integer> out = deliver(DatagramImpairment.of(0, 0.1, 0.1, 3), 1_000);
    assertThat(out).containsAll(java.util.stream.IntStream.range(0, 999).boxed().toList());
    assertThat(out.size()).isGreaterThan(1_000);
    assertThat(out).as("some datagrams overtaken").isNotEqualTo(out.stream().sorted().toList());
  }

  @Test
  void outboundDatagramsAreDroppedToo() {
    EmbeddedChannel ch = new EmbeddedChannel(new ImpairmentHandler(DatagramImpairment.loss(0.5, 1)));
    for (int i = 0; i < 1000; i++) {
      ch.writeOutbound(new DatagramPacket(Unpooled.buffer(1).writeByte(i), A, B));
    }
    int sent = 0;
    for (DatagramPacket p; (p = ch.readOutbound()) != null; sent++) {
      p.release();
    }
    assertThat(sent).isBetween(400, 600);
    ch.finishAndReleaseAll();
  }

  @Test
  void ratesOutsideTheUnitIntervalAreRefusedByName() {
    assertThatThrownBy(() -> DatagramImpairment.of(1.0, 0, 0, 1)).hasMessageContaining("lossRate");
    assertThatThrownBy(() -> DatagramImpairment.of(0, -0.1, 0, 1)).hasMessageContaining("duplicateRate");
  }
}
