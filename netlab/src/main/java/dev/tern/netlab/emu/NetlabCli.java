package dev.tern.netlab.emu;

import dev.tern.netlab.link.LinkConfig;
import dev.tern.netlab.link.LinkProfile;
import dev.tern.netlab.link.LinkProfiles;
import dev.tern.netlab.link.TraceSchedule;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Runs the emulator until killed. Prints the namespaces and addresses, then {@code READY}; run
 * programs in them with {@code ip netns exec <namespace> <command>}. Explicit link options
 * override the profile's values in both directions.
 */
@Command(name = "netlab", mixinStandardHelpOptions = true,
    description = "Emulate a link between two network namespaces (needs root).")
public final class NetlabCli implements Callable<Integer> {
  @Option(names = "--profile", description = "link profile: ${COMPLETION-CANDIDATES}",
      completionCandidates = ProfileNames.class)
  String profile = "lan";

  @Option(names = "--seed", description = "seed of the link's random processes (default ${DEFAULT-VALUE})")
  long seed = 1;

  @Option(names = "--log", description = "write the per-packet log (TSV) to this file")
  Path log;

  @Option(names = "--cc", description = "kernel TCP congestion control in both namespaces (cubic, bbr, reno)")
  String congestionControl;

  @Option(names = "--block-udp", description = "drop every UDP packet in both directions (a UDP-filtering middlebox)")
  boolean blockUdp;

  @Option(names = "--duration-s", description = "stop after this many seconds (default: run until killed)")
  long durationS;

  @Option(names = "--delay-ms", description = "one-way delay, each direction") Double delayMs;
  @Option(names = "--jitter-ms", description = "peak-to-peak delay wander") Double jitterMs;
  @Option(names = "--rate-mbit", description = "rate in Mbit/s (0 = unlimited)") Double rateMbit;
  @Option(names = "--queue-packets", description = "droptail limit in packets") Integer queuePackets;
  @Option(names = "--queue-bytes", description = "droptail limit in bytes") Long queueBytes;
  @Option(names = "--loss", description = "random loss probability") Double loss;
  @Option(names = "--burst-loss", description = "Gilbert-Elliott mean loss rate") Double burstLoss;
  @Option(names = "--burst-length", description = "Gilbert-Elliott mean burst length in packets") Double burstLength;
  @Option(names = "--reorder", description = "reordering probability") Double reorder;
  @Option(names = "--reorder-delay-ms", description = "extra delay of a reordered packet") Double reorderDelayMs;
  @Option(names = "--duplicate", description = "duplication probability") Double duplicate;
  @Option(names = "--corrupt", description = "corruption probability") Double corrupt;
  @Option(names = "--trace-up", description = "mahimahi trace for client-to-server") Path traceUp;
  @Option(names = "--trace-down", description = "mahimahi trace for server-to-client") Path traceDown;

  /**
   * Runs the emulator.
   *
   * @param args see {@code --help}
   */
  public static void main(String[] args) {
    System.exit(new CommandLine(new NetlabCli()).execute(args));
  }

  /** Starts the emulator, prints the namespaces and waits until killed or the duration ends. */
  @Override
  public Integer call() throws Exception {
    LinkProfile base = LinkProfiles.get(profile);
    LinkConfig up = withQueue(override(base.clientToServer(), traceUp), base);
    LinkConfig down = withQueue(override(base.serverToClient(), traceDown), base);
    CountDownLatch stop = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown, "netlab-cli-stop"));
    try (NetlabEmulator emu = NetlabEmulator.builder()
        .profile(new LinkProfile(base.name(), base.description(), up, down))
        .seed(seed).packetLog(log).tcpCongestionControl(congestionControl).blockUdp(blockUdp).start()) {
      System.out.println("client-namespace " + emu.clientNamespace() + " " + emu.clientAddress());
      System.out.println("server-namespace " + emu.serverNamespace() + " " + emu.serverAddress());
      System.out.println("link c2s " + up);
      System.out.println("link s2c " + down);
      System.out.println("READY");
      System.out.flush();
      if (durationS > 0) {
        stop.await(durationS, java.util.concurrent.TimeUnit.SECONDS);
      } else {
        stop.await();
      }
      emu.checkHealthy();
      System.out.println("counters " + emu.clientToServer());
      System.out.println("counters " + emu.serverToClient());
    }
    return 0;
  }

  /** A shaped link given without a queue limit gets the profiles' droptail rule. */
  private LinkConfig withQueue(LinkConfig c, LinkProfile base) {
    if (c.meanRateBitsPerSecond() == 0 || c.queueLimitBytes() > 0 || c.queueLimitPackets() > 0) {
      return c;
    }
    double rttMs = 2 * c.propagationDelayNs() / 1e6;
    return c.toBuilder().queueLimitBytes(LinkProfiles.defaultQueueBytes(c.meanRateBitsPerSecond(), rttMs)).build();
  }

  private LinkConfig override(LinkConfig c, Path trace) {
    LinkConfig.Builder b = c.toBuilder();
    if (delayMs != null) b.delayMs(delayMs);
    if (jitterMs != null) b.jitterMs(jitterMs);
    if (rateMbit != null) b.rateMbitPerSecond(rateMbit);
    if (trace != null) b.trace(TraceSchedule.load(trace));
    if (queuePackets != null) b.queueLimitPackets(queuePackets);
    if (queueBytes != null) b.queueLimitBytes(queueBytes);
    if (loss != null) b.loss(loss);
    if (burstLoss != null || burstLength != null) {
      b.burstLoss(burstLoss != null ? burstLoss : c.burstLossRate(),
          burstLength != null ? burstLength : c.meanBurstPackets());
    }
    if (reorder != null || reorderDelayMs != null) {
      b.reorder(reorder != null ? reorder : c.reorderProbability(),
          reorderDelayMs != null ? reorderDelayMs : c.reorderExtraDelayNs() / 1e6);
    }
    if (duplicate != null) b.duplicate(duplicate);
    if (corrupt != null) b.corrupt(corrupt);
    return b.build();
  }

  /** The profile names, for help and completion. */
  static final class ProfileNames implements Iterable<String> {
    @Override
    public java.util.Iterator<String> iterator() {
      return LinkProfiles.names().iterator();
    }
  }
}
