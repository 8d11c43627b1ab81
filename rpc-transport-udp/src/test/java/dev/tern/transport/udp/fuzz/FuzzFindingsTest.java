package dev.tern.transport.udp.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.connection.Connection;
import dev.tern.transport.udp.connection.TransportParameters;
import dev.tern.transport.udp.frame.AckFrame;
import dev.tern.transport.udp.frame.FrameType;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Minimal reproducers of what the fuzz targets found in the protocol core, one test each. They
 * fail until the core is fixed; the same inputs are in the seed corpus, so the fuzz targets'
 * replay fails on them too.
 */
class FuzzFindingsTest {

  @Test
  void anAckDelayNearTheVarintMaximumIsNeverNegative() {
    ByteBuffer in = ByteBuffer.wrap(Wire.ackWithRawDelay(5, Seeds.HUGE_ACK_DELAY, 2));
    in.get();
    AckFrame ack = new AckFrame();
    assertThat(ack.decode(in, FrameType.ACK)).isTrue();
    // RFC 9000 §19.3: ACK Delay x 2^ack_delay_exponent microseconds, a non-negative duration.
    assertThat(ack.ackDelayNs()).isNotNegative();
  }

  @Test
  void aHugeAckDelayDoesNotInflateTheRtt() {
    // The conversation seed: every datagram has the re-seal bit and a clock step of 2^n us.
    ByteBuffer in = ByteBuffer.wrap(
        Seeds.all().get("ServerReceiveFuzzTestInputs/datagrams/ack-delay-near-varint-max"));
    List<byte[]> datagrams = new ArrayList<>();
    List<Integer> steps = new ArrayList<>();
    while (in.hasRemaining()) {
      steps.add((in.get() & 0xff) >>> 3);
      byte[] d = new byte[in.getShort() & 0xffff];
      in.get(d);
      datagrams.add(d);
    }
    ServerHarness server = new ServerHarness();
    dev.tern.transport.udp.packet.PacketHeader header =
        new dev.tern.transport.udp.packet.PacketHeader();
    int last = datagrams.size() - 1;
    for (int i = 0; i <= last; i++) {
      if (steps.get(i) > 0) {
        server.advance((1L << steps.get(i)) * 1000);
      }
      if (i < last) {
        ByteBuffer d = ByteBuffer.wrap(datagrams.get(i));
        Wire.reseal(d, header, server); // the seed is in open form
        server.receive(d, 0);
      }
    }
    Connection c = server.demux().connections().get(0);
    long received = c.stats().packetsReceived;
    // The last datagram is the ACK with the huge delay; feed it to the connection directly.
    ByteBuffer ack = ByteBuffer.wrap(datagrams.get(last));
    Wire.reseal(ack, header, server);
    c.onDatagram(ack, server.nowNs());
    assertThat(c.stats().packetsReceived).as("the ACK was accepted").isEqualTo(received + 1);
    // RFC 9002 §5.3: the ACK delay only ever makes an RTT sample smaller, and no sample is longer
    // than the connection has existed.
    assertThat(c.rtt().smoothedRttNs()).isLessThanOrEqualTo(server.nowNs());
  }

  @Test
  void aHugeIdleTimeoutLeavesATimerInTheFuture() {
    ServerHarness server = new ServerHarness();
    Connection c = server.demux().onDatagram(ByteBuffer.wrap(Wire.sealed(
        Wire.initialWithHandshake(Wire.encode(Seeds.hugeIdleTimeoutHello())))), 0, 0,
        ByteBuffer.allocate(2048));
    assertThat(c).as("the INITIAL opens a connection").isNotNull();
    // RFC 9000 §10.1: the idle timeout is the minimum of both sides' values: ours, 30 s.
    assertThat(c.nextTimeoutNs()).isBetween(0L, 30_000_000_000L);
  }

  @Test
  void versionInformationWithChosenVersionZeroIsATransportParameterError() {
    // docs/protocol.md §3 and RFC 9368 §3: a Chosen Version of 0 is a parsing failure.
    assertThat(new TransportParameters().decode(ByteBuffer.wrap(Seeds.versionInformationChosenZero())))
        .isNotNull();
  }

  @Test
  void aServerBlockedByTheAmplificationLimitKeepsNoTimerInThePast() throws Exception {
    // The fuzzer's input, kept as found but for its first datagram, now an encrypted version's
    // client INITIAL: datagrams that never validate the client's address.
    byte[] input = Seeds.amplificationLimitedPto();
    ServerHarness server = new ServerHarness();
    ByteBuffer in = ByteBuffer.wrap(input);
    dev.tern.transport.udp.packet.PacketHeader header = new dev.tern.transport.udp.packet.PacketHeader();
    while (in.remaining() >= 3) {
      int control = in.get() & 0xff;
      int length = Math.min(Math.min(in.getShort() & 0xffff, 1500), in.remaining());
      byte[] d = new byte[(control & ServerReceiveFuzzTest.PAD) != 0 ? Math.max(length, 1200)
          : length];
      in.get(d, 0, length);
      if (control >>> 3 > 0) {
        server.advance((1L << (control >>> 3)) * 1000);
      }
      ByteBuffer datagram = ByteBuffer.wrap(d);
      if ((control & ServerReceiveFuzzTest.RESEAL) != 0) {
        Wire.reseal(datagram, header, server);
      }
      server.receive(datagram, (control & ServerReceiveFuzzTest.OTHER_PATH) != 0 ? 1 : 0);
    }
    Connection c = server.demux().connections().get(0);
    // Run the connection's timers the way a driver does, without ever hearing from the client.
    long now = server.nowNs();
    for (int i = 0; i < 8; i++) {
      now = Math.max(now, c.nextTimeoutNs()) + 1_000_000;
      c.onTimeout(now);
      while (c.pollDatagram(ByteBuffer.allocate(2048), now) > 0) {
        // RFC 9000 §8.1: nothing may go out beyond three times what was received.
      }
      // RFC 9002 §6.2.2.1: a server that cannot send must not keep a probe timer armed.
      assertThat(c.nextTimeoutNs()).as("timer after onTimeout(%d)", now).isGreaterThanOrEqualTo(now);
    }
  }
  @Test
  void aConnectionOpenedLateByADroppedPacketTimesOutFromItsCreation() {
    // An INITIAL that opens but carries a STREAM frame (RFC 9000 §17.2.2 forbids it): the
    // connection exists, its packet is dropped, nothing is processed. The idle timer must count
    // from when the connection appeared, not from time 0.
    long late = 2_000_000_000_000L;
    ByteBuffer frames = ByteBuffer.allocate(64);
    dev.tern.transport.udp.frame.StreamFrame.encodeHeader(frames, 0, 0, 4, false);
    frames.put(new byte[4]);
    ServerHarness server = new ServerHarness();
    server.advance(late);
    Connection c = server.receive(ByteBuffer.wrap(Wire.sealed(Wire.initial(0,
        java.util.Arrays.copyOf(frames.array(), frames.position())))), 0);
    assertThat(c).as("the INITIAL opens a connection").isNotNull();
    assertThat(c.stats().forbiddenFramesDropped).isEqualTo(1);
    assertThat(server.demux().connections()).as("not timed out at once").contains(c);
    // RFC 9000 §10.1: closed after the idle timeout without a packet processed, counted from now.
    assertThat(c.nextTimeoutNs()).isGreaterThanOrEqualTo(late);
    server.advance(30_000_000_000L);
    assertThat(server.demux().connections()).as("idle timeout from creation").isEmpty();
  }
}
