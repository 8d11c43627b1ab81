package dev.tern.transport.udp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A server at the anti-amplification limit whose probe timeout would have expired while it was
 * blocked: the client's next datagram unblocks it, and RFC 9002 §A.6 (OnDatagramReceived) runs
 * the probe timeout at once instead of leaving its timer in the past.
 */
@Timeout(60)
class AmplificationUnblockTest {
  private static final long MS = 1_000_000L;

  @Test
  void aDatagramThatUnblocksTheServerRunsTheProbeItsTimerOwed() {
    Connection client = Connection.client(Forge.seeded(ConnectionConfig.defaults(), 1),
        new ConnectionListener() {});
    ServerDemux demux = new ServerDemux(Forge.seeded(ConnectionConfig.defaults(), 2),
        c -> new ConnectionListener() {}, 4);
    ByteBuffer wire = ByteBuffer.allocate(2048);
    long now = 1_000 * MS;
    client.pollDatagram(wire, now);
    wire.flip();
    Connection server = demux.onDatagram(wire, now, 0, ByteBuffer.allocate(2048));
    assertThat(server).isNotNull();
    // Every answer of the server is lost; it probes until the 3x limit stops it (RFC 9000 §8.1).
    long sentBefore = drain(server, wire, now);
    long idleDeadline = now + 30_000 * MS;
    for (int i = 0; i < 10 && server.nextTimeoutNs() < idleDeadline; i++) {
      now = server.nextTimeoutNs();
      server.onTimeout(now);
      sentBefore += drain(server, wire, now);
    }
    assertThat(server.recoveryTimerNs()).as("blocked: no probe timer armed")
        .isEqualTo(Long.MAX_VALUE);
    long blockedSent = server.stats().packetsSent;

    // Much later, the client's own probe (a retransmitted INITIAL) arrives.
    now += 5_000 * MS;
    client.onTimeout(Math.max(now, client.nextTimeoutNs()));
    wire.clear();
    assertThat(client.pollDatagram(wire, now)).isGreaterThanOrEqualTo(1200);
    wire.flip();
    demux.onDatagram(wire, now, 0, ByteBuffer.allocate(2048));
    // The driver sends what is due: the probe the timer owed goes with the answer, without
    // waiting for another timer round.
    drain(server, wire, now);
    assertThat(server.stats().packetsSent).as("the owed probe went out").isGreaterThan(blockedSent);
    assertThat(server.spaces[PacketSpace.INITIAL].loss.timerNs())
        .as("the INITIAL probe timer, re-armed from the probe").isGreaterThan(now);
    // Then it runs the timers that are due (another space's probe timeout may be), until settled.
    for (int i = 0; i < 4 && server.nextTimeoutNs() <= now; i++) {
      server.onTimeout(now);
      drain(server, wire, now);
    }
    assertThat(server.nextTimeoutNs()).as("timers settle after the unblocking datagram")
        .isGreaterThan(now);
  }

  private static long drain(Connection c, ByteBuffer wire, long now) {
    long n = 0;
    while (true) {
      wire.clear();
      if (c.pollDatagram(wire, now) == 0) {
        return n;
      }
      n++;
    }
  }
}
