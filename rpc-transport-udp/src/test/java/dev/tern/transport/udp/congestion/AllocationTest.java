package dev.tern.transport.udp.congestion;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The per-packet paths of every controller and the pacer allocate nothing in steady state. */
class AllocationTest {
  private static final long MS = 1_000_000L;

  @ParameterizedTest
  @EnumSource(CongestionControl.class)
  void controllerAndPacerAllocateNothingPerPacket(CongestionControl algorithm) {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    CongestionController cc = CongestionControllers.create(algorithm, 1350, 3);
    RoundDriver d = new RoundDriver(cc);
    Pacer pacer = new Pacer(1350, cc.pacingRateBytesPerSecond(d.rtt));
    run(d, pacer, 6_000);
    long before = threads.getCurrentThreadAllocatedBytes();
    run(d, pacer, 2_000);
    long allocated = threads.getCurrentThreadAllocatedBytes() - before;
    // 40,000 packets: one 16-byte object per packet would be 640 KB. A few dozen bytes can come
    // from the JIT recompiling a method mid-run, so allow under 1 KB in all.
    assertThat(allocated).isLessThan(1024);
  }

  private static void run(RoundDriver d, Pacer pacer, int rounds) {
    for (int i = 0; i < rounds; i++) {
      // 20 packets a round with one loss every 7 rounds exercises growth, loss and recovery.
      d.roundLosing(20, 40 * MS, i % 7 == 0 ? 5 : -1);
      pacer.update(d.cc, d.rtt);
      long t = pacer.nextSendTimeNs(d.nowNs, 1350);
      pacer.onPacketSent(t, 1350);
    }
  }
}
