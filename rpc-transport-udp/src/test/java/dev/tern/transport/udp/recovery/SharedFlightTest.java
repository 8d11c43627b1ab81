package dev.tern.transport.udp.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.congestion.CongestionController;
import dev.tern.transport.udp.congestion.NewReno;
import dev.tern.transport.udp.frame.AckFrame;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Two packet-number spaces' detectors sharing one {@link Flight} (RFC 9002 §A.2-A.3): bytes in
 * flight and the probe backoff are the connection's, each space numbers its packets from 0, and
 * the congestion controller sees one sending sequence across the spaces.
 */
class SharedFlightTest {
  private static final long MS = 1_000_000L;

  private final RttEstimator rtt = new RttEstimator();
  private final List<String> ccEvents = new ArrayList<>();
  private final NewReno reno = new NewReno(1350);
  private final CongestionController cc = new CongestionController() {
    @Override
    public void onPacketSent(long nowNs, long packetNumber, int bytes, long bytesInFlight) {
      ccEvents.add("sent " + packetNumber + " inflight " + bytesInFlight);
      reno.onPacketSent(nowNs, packetNumber, bytes, bytesInFlight);
    }

    @Override
    public void onPacketAcked(long nowNs, long packetNumber, int bytes, long sentTimeNs,
        RttView view, long bytesInFlight) {
      ccEvents.add("acked " + packetNumber + " inflight " + bytesInFlight);
      reno.onPacketAcked(nowNs, packetNumber, bytes, sentTimeNs, view, bytesInFlight);
    }

    @Override
    public void onPacketLost(long nowNs, long packetNumber, int bytes, long sentTimeNs,
        long bytesInFlight) {
      ccEvents.add("lost " + packetNumber);
      reno.onPacketLost(nowNs, packetNumber, bytes, sentTimeNs, bytesInFlight);
    }

    @Override
    public void onPersistentCongestion(long nowNs) {
      reno.onPersistentCongestion(nowNs);
    }

    @Override
    public long congestionWindowBytes() {
      return reno.congestionWindowBytes();
    }

    @Override
    public long pacingRateBytesPerSecond(RttView view) {
      return reno.pacingRateBytesPerSecond(view);
    }

    @Override
    public boolean inSlowStart() {
      return reno.inSlowStart();
    }

    @Override
    public String name() {
      return "recording " + reno.name();
    }
  };
  private final SentFrameSink sink = new SentFrameSink() {
    @Override
    public void onFrameAcked(byte type, long a, long b, int length) {}

    @Override
    public void onFrameLost(byte type, long a, long b, int length) {}
  };
  private final Flight flight = new Flight();
  private final SentPacketLog initialLog = new SentPacketLog();
  private final SentPacketLog appLog = new SentPacketLog();
  private final LossDetector initial = new LossDetector(initialLog, rtt, cc, sink, flight);
  private final LossDetector app = new LossDetector(appLog, rtt, cc, sink, flight);

  private static void send(SentPacketLog log, LossDetector d, long nowNs, int bytes) {
    log.beginPacket();
    log.addFrame(SentFrameType.PING, 0, 0, 0);
    d.onPacketSent(nowNs, bytes, true, true);
  }

  private static AckFrame ack(long largest, long smallest) {
    ByteBuffer b = ByteBuffer.allocate(64);
    AckFrame.encode(b, new long[] {largest}, new long[] {smallest}, 1, 0, null, null, 0, 64);
    b.flip();
    AckFrame f = new AckFrame();
    f.decode(b, b.get());
    return f;
  }

  @Test
  void spacesNumberFromZeroWhileTheControllerSeesOneSequenceAndTheirSumInFlight() {
    send(initialLog, initial, 0, 1200);
    send(appLog, app, MS, 100);
    send(appLog, app, 2 * MS, 100);
    assertThat(initialLog.nextPacketNumber()).isEqualTo(1);
    assertThat(appLog.nextPacketNumber()).isEqualTo(2);
    assertThat(flight.bytesInFlight()).isEqualTo(1400);
    assertThat(initial.bytesInFlight()).isEqualTo(app.bytesInFlight()).isEqualTo(1400);
    assertThat(initial.ackElicitingInFlight()).isEqualTo(1);
    assertThat(app.ackElicitingInFlight()).isEqualTo(2);
    // The application space's packet 0 is the controller's packet 1.
    assertThat(app.onAck(ack(0, 0), 30 * MS)).isTrue();
    assertThat(ccEvents).containsExactly("sent 0 inflight 1200", "sent 1 inflight 1300",
        "sent 2 inflight 1400", "acked 1 inflight 1300");
    // An ACK in one space says nothing about the other's packets.
    assertThat(initial.ackElicitingInFlight()).isEqualTo(1);
    assertThat(initialLog.isOpen(0)).isTrue();
    // An ACK of a packet the space never sent is refused, whatever the other space sent.
    assertThat(initial.onAck(ack(2, 2), 31 * MS)).isFalse();
  }

  @Test
  void theProbeBackoffIsSharedAndAnyAcknowledgementResetsIt() {
    send(initialLog, initial, 0, 1200);
    send(appLog, app, 0, 100);
    long due = initial.timerNs();
    assertThat(initial.onTimeout(due)).isEqualTo(LossDetector.PROBES_PER_PTO);
    assertThat(flight.ptoCount()).isEqualTo(1);
    assertThat(app.ptoCount()).isEqualTo(1);
    // The application space's timer backs off too (RFC 9002 §6.2.1: one pto_count).
    long appDue = app.timerNs();
    assertThat(appDue).isGreaterThan(due);
    assertThat(app.onAck(ack(0, 0), due + MS)).isTrue();
    assertThat(flight.ptoCount()).isZero();
    assertThat(initial.ptoCount()).isZero();
  }

  @Test
  void discardingASpaceTakesItsPacketsOutOfTheSharedFlightWithoutALoss() {
    send(initialLog, initial, 0, 1200);
    send(appLog, app, 0, 100);
    initial.discardAll();
    assertThat(flight.bytesInFlight()).isEqualTo(100);
    assertThat(initial.packetsLost()).isZero();
    assertThat(ccEvents).noneMatch(e -> e.startsWith("lost"));
    assertThat(initial.timerNs()).isEqualTo(Long.MAX_VALUE);
    assertThat(app.timerNs()).isLessThan(Long.MAX_VALUE);
  }
}
