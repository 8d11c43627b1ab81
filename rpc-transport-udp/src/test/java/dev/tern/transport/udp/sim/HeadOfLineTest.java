package dev.tern.transport.udp.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.connection.ConnectionConfig;
import dev.tern.transport.udp.packet.Versions;
import dev.tern.transport.udp.stream.RangeSet;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Head-of-line freedom: losing stream B's packets never holds back stream A. A warm-up call grows
 * the window first, then A (100 KB, about 75 packets) and B (30 KB) share the downlink.
 */
@Timeout(60)
class HeadOfLineTest {
  private static final long A = 4;
  private static final long B = 8;
  private static final long RATE = 20_000_000;
  private static final long DELAY_NS = 40_000_000;
  private static final long START_NS = 4_000_000_000L;

  private static List<Call> calls() {
    return List.of(new Call(0, 64, 2 << 20), new Call(START_NS, 64, 100_000),
        new Call(START_NS, 64, 30_000));
  }

  /** Drops the first transmission of every datagram with B's data (with A's or not). */
  private static final class DropB implements ScriptedChannel.DropRule {
    final boolean alsoShared;
    final Set<Long> bOffsetsSent = new HashSet<>();
    int droppedB;
    int droppedShared;
    int sharedSeen;

    DropB(boolean alsoShared) {
      this.alsoShared = alsoShared;
    }

    @Override
    public boolean drop(long index, ByteBuffer datagram) {
      boolean hasA = false;
      boolean firstOfB = false;
      for (long[] f : StreamFramesOf.parse(datagram)) {
        hasA |= f[0] == A && f[2] > 0;
        if (f[0] == B && f[2] > 0 && bOffsetsSent.add(f[1])) {
          firstOfB = true;
        }
      }
      if (hasA && firstOfB) {
        sharedSeen++;
      }
      if (!firstOfB || (hasA && !alsoShared)) {
        return false;
      }
      if (hasA) {
        droppedShared++;
      } else {
        droppedB++;
      }
      return true;
    }
  }

  private static Simulation sim(ScriptedChannel.DropRule rule, List<Call> calls) {
    // The test reads frames off the wire: plaintext version 1, whose packets differ only in
    // their protection (docs/protocol.md §9).
    ConnectionConfig config = ConnectionConfig.builder().versions(Versions.V1).build();
    return new Simulation(7, new ScriptedChannel(DELAY_NS, RATE, null),
        new ScriptedChannel(DELAY_NS, RATE, rule), config, config, calls);
  }

  @Test
  void bytesOfAReachTheApplicationTheMomentTheyAreInOrder() {
    List<Call> calls = calls();
    DropB rule = new DropB(true);
    Simulation sim = sim(rule, calls);
    RangeSet receivedA = new RangeSet();
    long[] checks = {0};
    String[] violation = {null};
    sim.observeClientDeliveries((now, data) -> {
      ByteBuffer b = ByteBuffer.wrap(data);
      for (long[] f : StreamFramesOf.parse(b)) {
        if (f[0] == A) {
          receivedA.add(f[1], f[1] + f[2]);
        }
      }
      long inOrder = receivedA.contiguousEnd(0);
      Call a = calls.get(1);
      checks[0]++;
      if (a.read != inOrder && violation[0] == null) {
        violation[0] = "at " + now + " ns A had " + inOrder + " bytes in order but the "
            + "application had read " + a.read;
      }
    });
    assertThat(sim.runUntil(sim::allCallsDone, 60_000_000_000L)).as(String.valueOf(sim.fatal()))
        .isTrue();
    assertThat(violation[0]).isNull();
    assertThat(rule.droppedB + rule.droppedShared).isGreaterThan(10);
    assertThat(rule.droppedShared).as("packets carrying A and B dropped").isPositive();
    assertThat(calls.get(1).read).isEqualTo(100_000);
    assertThat(calls.get(2).read).isEqualTo(30_000);
    assertThat(checks[0]).isGreaterThan(75);
  }

  @Test
  void lossesOfBDoNotDelayA() {
    List<Call> clean = calls();
    Simulation reference = sim(null, clean);
    assertThat(reference.runUntil(reference::allCallsDone, 60_000_000_000L)).isTrue();
    long aCleanNs = clean.get(1).doneNs();

    List<Call> lossy = calls();
    DropB rule = new DropB(false);
    Simulation sim = sim(rule, lossy);
    assertThat(sim.runUntil(sim::allCallsDone, 60_000_000_000L)).as(String.valueOf(sim.fatal()))
        .isTrue();
    long aLossyNs = lossy.get(1).doneNs();
    long onePacketNs = new ScriptedChannel(DELAY_NS, RATE, null).serialisationNs(1350 + 28);
    assertThat(rule.droppedB).as("B-only packets dropped").isGreaterThan(10);
    assertThat(Math.abs(aLossyNs - aCleanNs)).as("A done at %d ns, loss-free at %d ns", aLossyNs,
        aCleanNs).isLessThanOrEqualTo(onePacketNs);
    assertThat(lossy.get(2).doneNs()).isGreaterThan(clean.get(2).doneNs());
  }
}
