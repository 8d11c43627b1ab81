package dev.tern.netlab.emu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.netlab.link.LinkConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.assertj.core.data.Percentage;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Measures the emulator from the outside: separate processes in the two namespaces exchange UDP
 * and TCP traffic and the delay, rate and loss they see must match the configured link. Needs
 * root; {@code -Dnetlab.emulator.skip=true} reports it as skipped instead.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
@Tag("root") // network namespaces: a machine without root runs verify -DexcludedGroups=root
class EmulatorSelfTestIT {
  private static final long MS = 1_000_000L;

  @BeforeEach
  void requireRoot() {
    Assumptions.assumeFalse(Boolean.getBoolean("netlab.emulator.skip"),
        "netlab.emulator.skip=true: emulator self-test skipped");
    Netns.requireRoot();
  }

  @Test
  void delayAndRateMatchTheLink() throws Exception {
    LinkConfig cfg = LinkConfig.builder().delayMs(100).rateMbitPerSecond(10).queueLimitPackets(300).build();
    try (NetlabEmulator emu = NetlabEmulator.builder().links(cfg, cfg).seed(3).start()) {
      // Delay: 100-byte UDP pings (128-byte IP packets), spaced so that no queue builds.
      double expectedRttMs = 2 * cfg.idealOneWayNs(128) / 1e6;
      Map<String, Double> ping;
      try (ProbeProcess echo = ProbeProcess.inServer(emu, "echo", "--idle-exit-s", "20")) {
        int port = echo.awaitReady(30);
        try (ProbeProcess pinger = ProbeProcess.inClient(emu, "ping", "--target", emu.serverAddress(),
            "--port", String.valueOf(port), "--count", "40", "--interval-ms", "25", "--size", "100")) {
          ping = pinger.awaitResult(30);
        }
      }
      System.out.printf("netlab self-test delay: expected RTT %.2f ms, measured min %.2f p50 %.2f mean %.2f max %.2f ms (%d/%d)%n",
          expectedRttMs, ping.get("min_ms"), ping.get("p50_ms"), ping.get("mean_ms"), ping.get("max_ms"),
          ping.get("received").intValue(), ping.get("sent").intValue());
      assertThat(ping.get("received")).isEqualTo(40.0);
      assertThat(ping.get("p50_ms")).isCloseTo(expectedRttMs, Percentage.withPercentage(5));

      // Rate: 1472-byte datagrams (1500-byte IP packets) offered at 1.5x the link rate keep the
      // bottleneck busy (the 300-packet queue, 360 ms deep, rides out a stalled sender on a
      // loaded machine); the receiver sees the link rate scaled to the payload share.
      double expectedBps = 10e6 * 1472 / 1500;
      int count = 2500;
      Map<String, Double> sink;
      try (ProbeProcess s = ProbeProcess.inServer(emu, "sink", "--count", String.valueOf(count))) {
        int port = s.awaitReady(30);
        try (ProbeProcess blast = ProbeProcess.inClient(emu, "blast", "--target", emu.serverAddress(),
            "--port", String.valueOf(port), "--count", String.valueOf(count), "--size", "1472",
            "--rate-bps", String.valueOf((long) (expectedBps * 1.5)))) {
          blast.awaitResult(30);
          sink = s.awaitResult(30);
        }
      }
      LinkCounters c2s = emu.clientToServer();
      System.out.printf("netlab self-test rate: expected %.3f Mbit/s payload, measured %.3f Mbit/s over %.0f ms; "
          + "received %d of %d, link queue drops %d%n", expectedBps / 1e6, sink.get("rate_bps") / 1e6,
          sink.get("span_ms"), sink.get("received").intValue(), count, c2s.droppedQueueFull());
      System.out.printf("netlab self-test scheduling error: c2s mean %.3f ms, max %.3f ms%n",
          c2s.meanLateNs() / 1e6, c2s.maxLateNs() / 1e6);
      assertThat(sink.get("rate_bps")).isCloseTo(expectedBps, Percentage.withPercentage(5));
      assertThat(c2s.droppedQueueFull()).isPositive();
      emu.checkHealthy();
    }
  }

  @Test
  void lossRatesFallWithinBinomialBounds() throws Exception {
    double p = 0.2;
    LinkConfig random = LinkConfig.builder().delayMs(5).loss(p).build();
    // Bursty: 20% of 4 ms slots bad, mean bad period 2 slots; at one packet per millisecond a
    // burst holds 8 packets on average. Slots longer than the packet spacing keep the figure
    // robust to the sender's timing (a late sender bunches packets, an empty slot merges bursts).
    LinkConfig bursty = LinkConfig.builder().delayMs(5).burstLoss(p, 2).burstSlotNs(4 * MS).build();
    int count = 3000;
    try (NetlabEmulator emu = NetlabEmulator.builder().links(random, bursty).seed(11).start();
        ProbeProcess upSink = ProbeProcess.inServer(emu, "sink", "--count", String.valueOf(count));
        ProbeProcess downSink = ProbeProcess.inClient(emu, "sink", "--count", String.valueOf(count))) {
      int upPort = upSink.awaitReady(30);
      int downPort = downSink.awaitReady(30);
      String rate = String.valueOf(200 * 8 * 1000); // 200-byte payloads, one per millisecond
      try (ProbeProcess up = ProbeProcess.inClient(emu, "blast", "--target", emu.serverAddress(),
              "--port", String.valueOf(upPort), "--count", String.valueOf(count), "--size", "200", "--rate-bps", rate);
          ProbeProcess down = ProbeProcess.inServer(emu, "blast", "--target", emu.clientAddress(),
              "--port", String.valueOf(downPort), "--count", String.valueOf(count), "--size", "200", "--rate-bps", rate)) {
        up.awaitResult(30);
        down.awaitResult(30);
      }
      Map<String, Double> upResult = upSink.awaitResult(30);
      Map<String, Double> downResult = downSink.awaitResult(30);

      double lost = upResult.get("lost");
      double sigma = Math.sqrt(count * p * (1 - p));
      System.out.printf("netlab self-test random loss: %.0f of %d lost (%.2f%%), expected %.0f +- %.0f (4.5 sigma)%n",
          lost, count, 100 * lost / count, count * p, 4.5 * sigma);
      assertThat(lost).isBetween(count * p - 4.5 * sigma, count * p + 4.5 * sigma);
      assertThat(emu.clientToServer().droppedRandomLoss()).isEqualTo((long) lost);

      double burstLost = downResult.get("lost");
      double meanBurst = downResult.get("mean_burst");
      System.out.printf("netlab self-test bursty loss: %.0f of %d lost (%.2f%%, expected 20%%), mean burst %.2f packets (expected 8)%n",
          burstLost, count, 100 * burstLost / count, meanBurst);
      // Losses are correlated: 4 packets share a slot's fate and slots are correlated by
      // rho = 1 - P(g->b) - P(b->g) = 0.375, so the count's variance is ~4 x (1+rho)/(1-rho) = 8.8
      // times the binomial one.
      double burstSigma = Math.sqrt(8.8 * count * p * (1 - p));
      assertThat(burstLost).isBetween(count * p - 3.5 * burstSigma, count * p + 3.5 * burstSigma);
      assertThat(meanBurst).isCloseTo(8.0, Percentage.withPercentage(30));
      assertThat(emu.serverToClient().droppedBurstLoss()).isEqualTo((long) burstLost);
      emu.checkHealthy();

      long epoch = emu.restartLinks();
      assertThat(emu.epochNs()).isEqualTo(epoch);
      assertThat(emu.clientToServer().sentPackets()).isZero();
      assertThat(emu.serverToClient().droppedBurstLoss()).isZero();
    }
  }

  @Test
  void kernelTcpCrossesTheLinkWithTheChosenCongestionControlAndIsLogged(@TempDir Path dir) throws Exception {
    Path log = dir.resolve("packets.tsv");
    String allowedBefore = Files.readString(Path.of("/proc/sys/net/ipv4/tcp_allowed_congestion_control")).trim();
    LinkConfig cfg = LinkConfig.builder().delayMs(20).rateMbitPerSecond(20).queueLimitPackets(200).build();
    try (NetlabEmulator emu = NetlabEmulator.builder().links(cfg, cfg).seed(5).packetLog(log)
        .tcpCongestionControl("cubic").start()) {
      for (String ns : List.of(emu.clientNamespace(), emu.serverNamespace())) {
        assertThat(Netns.runIn(ns, "sysctl", "-n", "net.ipv4.tcp_congestion_control").trim()).isEqualTo("cubic");
      }
      try (ProbeProcess sink = ProbeProcess.inServer(emu, "tcp-sink")) {
        int port = sink.awaitReady(30);
        try (ProbeProcess send = ProbeProcess.inClient(emu, "tcp-send", "--target", emu.serverAddress(),
            "--port", String.valueOf(port), "--bytes", String.valueOf(1 << 20))) {
          send.awaitResult(60);
        }
        Map<String, Double> r = sink.awaitResult(30);
        System.out.printf("netlab self-test tcp (cubic): %d bytes at %.2f Mbit/s over a 20 Mbit/s, 40 ms RTT link%n",
            r.get("bytes").longValue(), r.get("rate_bps") / 1e6);
        assertThat(r.get("bytes")).isEqualTo((double) (1 << 20));
      }
      emu.checkHealthy();
    }
    List<String> lines = Files.readAllLines(log);
    assertThat(lines).anyMatch(l -> l.matches("[0-9.]+\tc2s\t\\d+\tok\t[0-9.]+\ttcp\t198\\.18\\.1\\.1\t\\d+\t198\\.19\\.1\\.1\t\\d+\tS\t0"));
    assertThat(lines).anyMatch(l -> l.matches("[0-9.]+\ts2c\t\\d+\tok\t[0-9.]+\ttcp\t198\\.19\\.1\\.1\t\\d+\t198\\.18\\.1\\.1\t\\d+\tSA\t0"));
    assertThat(Files.readString(Path.of("/proc/sys/net/ipv4/tcp_allowed_congestion_control")).trim())
        .isEqualTo(allowedBefore);
  }

  @Test
  void blockedUdpIsDroppedCountedAndLoggedWhileTcpPasses(@TempDir Path dir) throws Exception {
    Path log = dir.resolve("packets.tsv");
    LinkConfig cfg = LinkConfig.builder().delayMs(5).build();
    try (NetlabEmulator emu = NetlabEmulator.builder().links(cfg, cfg).seed(7).packetLog(log).start()) {
      emu.blockUdp(true);
      assertThat(emu.udpBlocked()).isTrue();
      try (ProbeProcess echo = ProbeProcess.inServer(emu, "echo", "--idle-exit-s", "20")) {
        int port = echo.awaitReady(30);
        try (ProbeProcess pinger = ProbeProcess.inClient(emu, "ping", "--target", emu.serverAddress(),
            "--port", String.valueOf(port), "--count", "10", "--interval-ms", "20", "--size", "100", "--wait-ms", "1000")) {
          assertThat(pinger.awaitResult(30).get("received")).isZero();
        }
        assertThat(emu.clientToServer().blockedUdp()).isEqualTo(10);
        assertThat(emu.clientToServer().sentPackets()).as("blocked packets never reach the link").isZero();
        // TCP is untouched by the block.
        try (ProbeProcess sink = ProbeProcess.inServer(emu, "tcp-sink")) {
          int tcpPort = sink.awaitReady(30);
          try (ProbeProcess send = ProbeProcess.inClient(emu, "tcp-send", "--target", emu.serverAddress(),
              "--port", String.valueOf(tcpPort), "--bytes", String.valueOf(64 * 1024))) {
            send.awaitResult(30);
          }
          assertThat(sink.awaitResult(30).get("bytes")).isEqualTo(64.0 * 1024);
        }
        emu.blockUdp(false);
        try (ProbeProcess pinger = ProbeProcess.inClient(emu, "ping", "--target", emu.serverAddress(),
            "--port", String.valueOf(port), "--count", "10", "--interval-ms", "20", "--size", "100")) {
          assertThat(pinger.awaitResult(30).get("received")).isEqualTo(10.0);
        }
      }
      assertThat(emu.clientToServer().blockedUdp()).isEqualTo(10);
      emu.checkHealthy();
    }
    assertThat(Files.readAllLines(log)).filteredOn(l -> l.contains("\tUDP_BLOCKED\t")).hasSize(10)
        .allMatch(l -> l.matches("[0-9.]+\tc2s\t128\tUDP_BLOCKED\t-\tudp\t.*"));
  }
}
