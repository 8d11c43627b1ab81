package dev.tern.netlab.emu;

import dev.tern.netlab.cli.LinkOptions;
import dev.tern.netlab.link.CustomLinks;
import dev.tern.netlab.link.LinkConfig;
import dev.tern.netlab.link.LinkProfile;
import dev.tern.netlab.link.LinkProfiles;
import dev.tern.netlab.link.RandomLinks;
import dev.tern.netlab.link.TraceSchedule;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Runs the emulator until killed. Prints the namespaces and addresses, then {@code READY}; run
 * programs in them with {@code ip netns exec <namespace> <command>}. The link is a named
 * {@code --profile} or one of the user's own ({@code --link}, {@code --link-file},
 * {@code --random-link}: see {@link LinkOptions}); explicit link options then override its values
 * in both directions. The link is printed in full before the emulator starts.
 */
@Command(name = "netlab", mixinStandardHelpOptions = true,
    description = "Emulate a link between two network namespaces (needs root).")
public final class NetlabCli implements Callable<Integer> {
  @Option(names = "--profile", description = "link profile: ${COMPLETION-CANDIDATES}",
      completionCandidates = ProfileNames.class)
  String profile = "lan";

  @Option(names = "--seed", description = "seed of the link's random processes and of --random-link (default ${DEFAULT-VALUE})")
  long seed = 1;

  @Mixin
  LinkOptions links = new LinkOptions();

  @Option(names = "--print-link", description = "print the link in full and exit (needs no root)")
  boolean printLink;

  @Spec
  CommandSpec spec;

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
    LinkProfile base = base();
    LinkConfig up = withQueue(override(base.clientToServer(), traceUp), base);
    LinkConfig down = withQueue(override(base.serverToClient(), traceDown), base);
    LinkProfile link = new LinkProfile(base.name(), base.description(), up, down);
    if (links.random()) {
      System.out.println("random link ranges: " + RandomLinks.RANGES);
    }
    System.out.println(CustomLinks.describe(link));
    System.out.flush();
    if (printLink) {
      return 0;
    }
    CountDownLatch stop = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown, "netlab-cli-stop"));
    try (NetlabEmulator emu = NetlabEmulator.builder()
        .profile(link)
        .seed(seed).packetLog(log).tcpCongestionControl(congestionControl).blockUdp(blockUdp).start()) {
      System.out.println("client-namespace " + emu.clientNamespace() + " " + emu.clientAddress());
      System.out.println("server-namespace " + emu.serverNamespace() + " " + emu.serverAddress());
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

  /** The named profile, or the one link of the user's own; errors as picocli parameter errors. */
  private LinkProfile base() {
    try {
      List<LinkProfile> own = links.profiles(seed);
      if (own.size() > 1) {
        throw new CommandLine.ParameterException(spec.commandLine(),
            "give one link: --link, --link-file and --random-link were given " + own.size() + " times together");
      }
      if (!own.isEmpty() && spec.commandLine().getParseResult().hasMatchedOption("--profile")) {
        throw new CommandLine.ParameterException(spec.commandLine(),
            "give --profile or a link of your own (--link, --link-file, --random-link), not both");
      }
      return own.isEmpty() ? LinkProfiles.get(profile) : own.get(0);
    } catch (IllegalArgumentException | java.io.UncheckedIOException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
    }
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
