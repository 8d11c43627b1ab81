package dev.tern.transport.udp.connection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.transport.udp.sim.Call;
import dev.tern.transport.udp.sim.ScriptedChannel;
import dev.tern.transport.udp.sim.Simulation;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The copy of the first handshake datagram (docs/protocol.md §4.1). */
@Timeout(60)
class HandshakeCopyTest {
  private static final long DELAY = 100_000_000L;
  private static final long COPY_DELAY = 5_000_000L;

  private static Simulation sim(ConnectionConfig config, ScriptedChannel.DropRule up,
      ScriptedChannel.DropRule down, List<Call> calls) {
    return new Simulation(7, new ScriptedChannel(DELAY, 10_000_000, up),
        new ScriptedChannel(DELAY, 10_000_000, down), config, config, calls);
  }

  @Test
  void clientSendsItsInitialTwiceByteForByteTheCopyFiveMillisecondsLater() {
    Connection c = Connection.client(Forge.seeded(ConnectionConfig.defaults(), 1), null);
    ByteBuffer first = ByteBuffer.allocate(1500);
    assertThat(c.pollDatagram(first, 0)).isEqualTo(1200);
    first.flip();
    ByteBuffer none = ByteBuffer.allocate(1500);
    assertThat(c.pollDatagram(none, 1_000_000L)).isZero();
    assertThat(c.nextTimeoutNs()).isEqualTo(COPY_DELAY);
    ByteBuffer copy = ByteBuffer.allocate(1500);
    c.onTimeout(COPY_DELAY);
    assertThat(c.pollDatagram(copy, COPY_DELAY)).isEqualTo(1200);
    copy.flip();
    assertThat(copy).isEqualTo(first);
    assertThat(c.stats().handshakeCopiesSent).isEqualTo(1);
    // One copy only: nothing more until the probe timeout (999 ms, RFC 9002 §6.2.2).
    assertThat(c.pollDatagram(none.clear(), 2 * COPY_DELAY)).isZero();
    assertThat(c.nextTimeoutNs()).isGreaterThan(900_000_000L);
  }

  @Test
  void noCopyWhenDisabled() {
    ConnectionConfig off = ConnectionConfig.builder().handshakeCopy(false).build();
    Connection c = Connection.client(Forge.seeded(off, 1), null);
    assertThat(c.pollDatagram(ByteBuffer.allocate(1500), 0)).isEqualTo(1200);
    assertThat(c.nextTimeoutNs()).isGreaterThan(900_000_000L);
    assertThat(off.handshakeCopyDelayMs()).isEqualTo(-1);
  }

  @Test
  void delayIsChecked() {
    assertThatThrownBy(() -> ConnectionConfig.builder().handshakeCopyDelayMs(-1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
    assertThatThrownBy(() -> ConnectionConfig.builder().handshakeCopyDelayMs(1001))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1001");
  }

  @Test
  void bothSidesSendOneCopyAndTheReceiversDropTheSecondAsDuplicate() {
    List<Call> calls = List.of(new Call(0, 100, 100));
    Simulation s = sim(ConnectionConfig.defaults(), null, null, calls);
    assertThat(s.runUntil(s::allCallsDone, 5_000_000_000L)).isTrue();
    assertThat(s.client().stats().handshakeCopiesSent).isEqualTo(1);
    assertThat(s.server().stats().handshakeCopiesSent).isEqualTo(1);
    s.runUntil(() -> false, s.nowNs() + 2 * DELAY); // the response's copy arrives after it
    // The handshake copy and the first-data copy (request, response) of each side.
    assertThat(s.server().stats().duplicatesDropped).isEqualTo(2);
    assertThat(s.client().stats().duplicatesDropped).isEqualTo(2);
    assertThat(s.client().stats().ptoCount + s.server().stats().ptoCount).isZero();
  }

  @Test
  void aLostInitialCostsTheCopyDelayNotTheProbeTimeout() {
    List<Call> calls = List.of(new Call(0, 100, 100));
    Simulation s = sim(ConnectionConfig.defaults(), (i, d) -> i == 0, null, calls);
    assertThat(s.runUntil(s::allCallsDone, 5_000_000_000L)).isTrue();
    List<Call> clean = List.of(new Call(0, 100, 100));
    Simulation ref = sim(ConnectionConfig.defaults(), null, null, clean);
    ref.runUntil(ref::allCallsDone, 5_000_000_000L);
    assertThat(calls.get(0).doneNs()).isBetween(clean.get(0).doneNs(),
        clean.get(0).doneNs() + COPY_DELAY + 1_000_000L);
    assertThat(s.client().stats().ptoCount).isZero();
  }

  @Test
  void aLostServerAnswerCostsTheCopyDelayNotTheProbeTimeout() {
    List<Call> calls = List.of(new Call(0, 100, 100));
    Simulation s = sim(ConnectionConfig.defaults(), null, (i, d) -> i == 0, calls);
    assertThat(s.runUntil(s::allCallsDone, 5_000_000_000L)).isTrue();
    List<Call> clean = List.of(new Call(0, 100, 100));
    Simulation ref = sim(ConnectionConfig.defaults(), null, null, clean);
    ref.runUntil(ref::allCallsDone, 5_000_000_000L);
    assertThat(calls.get(0).doneNs()).isBetween(clean.get(0).doneNs(),
        clean.get(0).doneNs() + COPY_DELAY + 1_000_000L);
    assertThat(s.client().stats().ptoCount + s.server().stats().ptoCount).isZero();
  }

  @Test
  void theFirstRequestAndResponseAreSentTwiceAndALostOneCostsTheCopyDelay() {
    List<Call> clean = List.of(new Call(0, 100, 100));
    Simulation ref = sim(ConnectionConfig.defaults(), null, null, clean);
    assertThat(ref.runUntil(ref::allCallsDone, 5_000_000_000L)).isTrue();
    assertThat(ref.client().stats().firstDataCopiesSent).isEqualTo(1);
    assertThat(ref.server().stats().firstDataCopiesSent).isEqualTo(1);
    // Client datagrams: INITIAL, its copy, then the request (index 2) and its copy.
    List<Call> calls = List.of(new Call(0, 100, 100));
    Simulation s = sim(ConnectionConfig.defaults(), (i, d) -> i == 2, null, calls);
    assertThat(s.runUntil(s::allCallsDone, 5_000_000_000L)).isTrue();
    assertThat(calls.get(0).doneNs()).isBetween(clean.get(0).doneNs(),
        clean.get(0).doneNs() + COPY_DELAY + 1_000_000L);
    assertThat(s.client().stats().ptoCount).isZero();
    // Without the copy the same loss waits for a probe timed from one RTT sample.
    List<Call> single = List.of(new Call(0, 100, 100));
    ConnectionConfig off = ConnectionConfig.builder().firstDataCopy(false).build();
    Simulation once = sim(off, (i, d) -> i == 2, null, single);
    assertThat(once.runUntil(once::allCallsDone, 5_000_000_000L)).isTrue();
    assertThat(once.client().stats().firstDataCopiesSent).isZero();
    assertThat(single.get(0).doneNs()).isGreaterThan(clean.get(0).doneNs() + 2 * 2 * DELAY);
  }

  @Test
  void withBothCopiesLostTheProbeTimeoutStillRecovers() {
    List<Call> calls = List.of(new Call(0, 100, 100));
    Simulation s = sim(ConnectionConfig.defaults(), (i, d) -> i < 2, null, calls);
    assertThat(s.runUntil(s::allCallsDone, 5_000_000_000L)).isTrue();
    assertThat(s.client().stats().ptoCount).isEqualTo(1);
    assertThat(calls.get(0).doneNs()).isGreaterThan(999_000_000L);
  }

  @Test
  void serverCopyStaysWithinTheAmplificationLimit() {
    // The server heard one 1,200-byte datagram (the copy was lost): it may send 3,600 bytes
    // (RFC 9000 §8.1) before the client proves its address; answer and copy take 2,400.
    List<Call> calls = List.of(new Call(0, 100, 100));
    Simulation s = sim(ConnectionConfig.defaults(), (i, d) -> i == 1, (i, d) -> i < 2, calls);
    s.runUntil(() -> s.server() != null && s.server().stats().handshakeCopiesSent == 1,
        1_000_000_000L);
    Connection server = s.server();
    assertThat(server.stats().bytesSent).isLessThanOrEqualTo(3 * 1200);
    assertThat(s.runUntil(s::allCallsDone, 10_000_000_000L)).isTrue();
  }
}
