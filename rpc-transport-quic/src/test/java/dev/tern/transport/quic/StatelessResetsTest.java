package dev.tern.transport.quic;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.DatagramPacket;
import io.netty.handler.codec.quic.QuicConnectionIdGenerator;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The pieces of a restarted QUIC server's stateless reset: connection IDs that carry their
 * connection's group, the secret in SETTINGS, the reset and its proof of the server's uptime. The
 * whole path with real processes is {@code ServerRestartTest} in interop-tests.
 */
class StatelessResetsTest {
  private static final InetSocketAddress CLIENT = new InetSocketAddress("127.0.0.1", 40000);
  private static final InetSocketAddress SERVER = new InetSocketAddress("127.0.0.1", 4433);

  private static byte[] bytes(ByteBuffer b) {
    byte[] a = new byte[b.remaining()];
    b.duplicate().get(a);
    return a;
  }

  /** A short-header packet of {@code length} bytes to {@code dcid}, its other bytes random. */
  private static DatagramPacket shortPacket(byte[] dcid, int length) {
    byte[] p = new byte[length];
    new SecureRandom().nextBytes(p);
    p[0] = (byte) (0x40 | (p[0] & 0x3f));
    System.arraycopy(dcid, 0, p, 1, dcid.length);
    return new DatagramPacket(Unpooled.wrappedBuffer(p), SERVER, CLIENT);
  }

  @Test
  void theSecretSurvivesItsThreeSettings() {
    for (int i = 0; i < 100; i++) {
      byte[] secret = new byte[StatelessResets.SECRET_BYTES];
      new SecureRandom().nextBytes(secret);
      long[] values = StatelessResets.toSettings(secret);
      for (long v : values) {
        assertThat(v).isBetween(0L, (1L << 62) - 1); // an HTTP/3 setting is a varint (RFC 9000 §16)
      }
      assertThat(StatelessResets.fromSettings(values[0], values[1], values[2])).isEqualTo(secret);
    }
    assertThat(StatelessResets.fromSettings(1L, null, 3L)).isNull();
    for (long id : new long[] {StatelessResets.SETTING_SECRET_0, StatelessResets.SETTING_SECRET_1,
        StatelessResets.SETTING_SECRET_2}) {
      assertThat((id - 0x21) % 0x1f).as("not a reserved grease identifier").isNotZero();
    }
  }

  @Test
  void idsOfOneConnectionShareItsSecretAndLookUnrelated() {
    StatelessResets.Server server = new StatelessResets.Server(new byte[32]);
    QuicConnectionIdGenerator ids = server.ids();
    byte[] first = bytes(ids.newId(ByteBuffer.allocate(8), ByteBuffer.allocate(8), StatelessResets.CID_BYTES));
    byte[] later = bytes(ids.newId(ByteBuffer.wrap(first), StatelessResets.CID_BYTES));
    byte[] other = bytes(ids.newId(StatelessResets.CID_BYTES));
    assertThat(first).hasSize(StatelessResets.CID_BYTES);
    assertThat(later).isNotEqualTo(first);
    assertThat(Arrays.copyOf(later, 4)).as("the boot tag").isEqualTo(Arrays.copyOf(first, 4));
    assertThat(Arrays.copyOfRange(later, 4, 20)).as("no byte after the tag repeats as a block")
        .isNotEqualTo(Arrays.copyOfRange(first, 4, 20));
    assertThat(server.secretOf(later)).isEqualTo(server.secretOf(first));
    assertThat(server.secretOf(other)).isNotEqualTo(server.secretOf(first));
  }

  @Test
  void aRestartedServerResetsTheOldProcessesConnectionsWithAProofOfItsUptime() {
    byte[] master = StatelessResets.masterKey(TestCertificates.server());
    assertThat(StatelessResets.masterKey(TestCertificates.server())).as("the same TLS key, the same master key")
        .isEqualTo(master);
    StatelessResets.Server old = new StatelessResets.Server(master);
    byte[] cid = bytes(old.ids().newId(StatelessResets.CID_BYTES));
    byte[] secret = old.secretOf(cid);

    StatelessResets.Server restarted = new StatelessResets.Server(master);
    long boundAt = System.nanoTime();
    restarted.bound();
    List<Object> passed = new ArrayList<>();
    EmbeddedChannel server = new EmbeddedChannel(restarted.responder(dev.tern.rpc.spi.TransportEvents.NONE), collect(passed));
    server.writeInbound(shortPacket(cid, 60));
    assertThat(passed).as("dropped after the answer").isEmpty();
    DatagramPacket reset = server.readOutbound();
    assertThat(reset).isNotNull();
    assertThat(reset.recipient()).isEqualTo(CLIENT);
    assertThat(reset.content().readableBytes()).isEqualTo(StatelessResets.RESET_BYTES).isLessThan(60);
    assertThat(reset.content().getUnsignedByte(0) & 0xc0).as("a short header's form bits").isEqualTo(0x40);
    assertThat(restarted.sent()).isEqualTo(1);

    AtomicLong uptime = new AtomicLong(Long.MIN_VALUE);
    StatelessResets.Detector detector = new StatelessResets.Detector(uptime::set);
    List<Object> clientPassed = new ArrayList<>();
    EmbeddedChannel client = new EmbeddedChannel(detector, collect(clientPassed));
    client.writeInbound(new DatagramPacket(reset.content().copy(), CLIENT, SERVER));
    assertThat(uptime.get()).as("not armed before the SETTINGS").isEqualTo(Long.MIN_VALUE);
    assertThat(clientPassed).hasSize(1);
    detector.arm(secret);
    client.writeInbound(new DatagramPacket(reset.content().copy(), CLIENT, SERVER));
    long elapsedMillis = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - boundAt);
    assertThat(uptime.get()).as("the uptime since the socket was bound").isBetween(0L, elapsedMillis);

    ByteBuf tampered = reset.content().copy();
    tampered.setByte(1 + 8, tampered.getByte(1 + 8) ^ 0x01); // the masked uptime
    client.writeInbound(new DatagramPacket(tampered, CLIENT, SERVER));
    assertThat(uptime.get()).as("a reset whose uptime was changed has no proof").isEqualTo(-1);
    reset.release();

    client.writeInbound(shortPacket(cid, 60));
    assertThat(clientPassed).as("an ordinary packet goes on to the codec").hasSize(2);
    releaseAll(passed);
    releaseAll(clientPassed);
  }

  @Test
  void packetsForThisProcessAndShortOrLongHeadersPassUnanswered() {
    StatelessResets.Server server = new StatelessResets.Server(new byte[32]);
    byte[] own = bytes(server.ids().newId(StatelessResets.CID_BYTES));
    byte[] foreign = bytes(new StatelessResets.Server(new byte[32]).ids().newId(StatelessResets.CID_BYTES));
    List<Object> passed = new ArrayList<>();
    EmbeddedChannel ch = new EmbeddedChannel(server.responder(dev.tern.rpc.spi.TransportEvents.NONE), collect(passed));
    ch.writeInbound(shortPacket(own, 60));
    ch.writeInbound(shortPacket(foreign, StatelessResets.RESET_BYTES)); // no shorter answer possible
    DatagramPacket initial = shortPacket(foreign, 1200);
    initial.content().setByte(0, 0xc0); // a long header
    ch.writeInbound(initial);
    assertThat((Object) ch.readOutbound()).isNull();
    assertThat(passed).hasSize(3);
    assertThat(server.sent()).isZero();
    releaseAll(passed);
  }

  @Test
  void resetsAreRateLimited() {
    StatelessResets.Server server = new StatelessResets.Server(new byte[32]);
    byte[] foreign = bytes(new StatelessResets.Server(new byte[32]).ids().newId(StatelessResets.CID_BYTES));
    EmbeddedChannel ch = new EmbeddedChannel(server.responder(dev.tern.rpc.spi.TransportEvents.NONE));
    int packets = StatelessResets.MAX_RESETS_PER_SECOND + 500;
    for (int i = 0; i < packets; i++) {
      ch.writeInbound(shortPacket(foreign, 50));
    }
    int answered = 0;
    for (Object o; (o = ch.readOutbound()) != null; answered++) {
      ((DatagramPacket) o).release();
    }
    // The window is a second: on a very slow machine it may roll over once during the loop.
    assertThat(answered).isBetween(StatelessResets.MAX_RESETS_PER_SECOND, 2 * StatelessResets.MAX_RESETS_PER_SECOND);
    assertThat(server.sent() + server.suppressed()).isEqualTo(packets);
  }

  private static ChannelInboundHandlerAdapter collect(List<Object> into) {
    return new ChannelInboundHandlerAdapter() {
      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        into.add(msg);
      }
    };
  }

  private static void releaseAll(List<Object> messages) {
    for (Object o : messages) {
      io.netty.util.ReferenceCountUtil.release(o);
    }
  }
}
