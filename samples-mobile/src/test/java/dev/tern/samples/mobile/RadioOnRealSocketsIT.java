package dev.tern.samples.mobile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.netlab.emu.Netns;
import dev.tern.netlab.link.LinkProfiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The radio on real sockets, read from a packet log: the shrunk sample client, in a network
 * namespace of its own, reads the feed over {@code udp} and over {@code okhttp} (two clients at
 * once), then keeps its channel open with no call for a while, then makes one quiet call the
 * server holds, with a keep-alive of 10 s. netlab's emulator forwards every packet between the
 * client's namespace and the server's and logs it. In the idle time the client sends nothing,
 * neither a datagram nor a TCP segment; during the quiet call it sends a PING every 10 s (after
 * the {@code udp} transport's waiting PINGs, backed off up to the interval).
 *
 * <p>Short in {@code verify} (20 s idle, a 35 s call); the full check is its own command:
 * {@code mvn -B -pl samples-mobile verify -Dit.test=RadioOnRealSocketsIT
 * -Dtern.radio.idle.seconds=600 -Dtern.radio.hold.seconds=120}. Needs root (network namespaces);
 * {@code -Dnetlab.emulator.skip=true} reports it as skipped instead. The figures go to
 * {@code target/radio/summary.txt}.
 */
@Tag("root")
@Timeout(value = 2, unit = TimeUnit.HOURS)
class RadioOnRealSocketsIT {
  private static final long S = 1_000_000_000L;
  private static final int KEEP_ALIVE_SECONDS = 10;
  private static final Pattern WINDOW = Pattern.compile("(\\w+): (idle|hold) from (\\d+) to (\\d+) ns");

  @Test
  void anIdleClientSendsNothingAndAQuietCallPingsAtItsKeepAlive() throws Exception {
    Assumptions.assumeFalse(Boolean.getBoolean("netlab.emulator.skip"), "netlab.emulator.skip=true");
    Netns.requireRoot();
    int idleSeconds = Integer.getInteger("tern.radio.idle.seconds", 20);
    int holdSeconds = Integer.getInteger("tern.radio.hold.seconds", 35);
    Path dir = Paths.get(System.getProperty("tern.shrunk.jar")).resolveSibling("radio");
    Path log = dir.resolve("packets.tsv");
    List<String[]> windows = new ArrayList<>();
    long startNs;
    try (FeedLab lab = FeedLab.start(LinkProfiles.get("lan"), false, log, dir, 50_443)) {
      startNs = lab.emu.startNs();
      List<CompletableFuture<String>> clients = new ArrayList<>();
      for (String mode : Arrays.asList("udp", "okhttp")) {
        Process client = lab.client("--idle-seconds", Integer.toString(idleSeconds),
            "--hold-seconds", Integer.toString(holdSeconds),
            "--keepalive-seconds", Integer.toString(KEEP_ALIVE_SECONDS), mode).start();
        clients.add(CompletableFuture.supplyAsync(() -> {
          try {
            String out = new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return client.waitFor() + "\n" + out;
          } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
          }
        }));
      }
      for (CompletableFuture<String> c : clients) {
        String result = c.get(idleSeconds + holdSeconds + 120L, TimeUnit.SECONDS);
        assertThat(result).as("a client's exit status and output").startsWith("0\n");
        Matcher m = WINDOW.matcher(result);
        while (m.find()) {
          windows.add(new String[] {m.group(1), m.group(2), m.group(3), m.group(4)});
        }
      }
    }
    assertThat(windows).as("idle and hold windows of both clients").hasSize(4);

    List<String[]> packets = new ArrayList<>();
    for (String l : Files.readAllLines(log, StandardCharsets.US_ASCII)) {
      if (!l.startsWith("#")) {
        packets.add(l.split("\t"));
      }
    }
    StringBuilder summary = new StringBuilder(String.format("idle %d s, quiet call %d s, keep-alive %d s%n",
        idleSeconds, holdSeconds, KEEP_ALIVE_SECONDS));
    for (String[] w : windows) {
      String proto = w[0].equals("udp") ? "udp" : "tcp";
      // Packet log times are milliseconds since the emulator started, on the same monotonic clock.
      double fromMs = (Long.parseLong(w[2]) - startNs) / 1e6;
      double toMs = (Long.parseLong(w[3]) - startNs) / 1e6;
      List<Double> up = new ArrayList<>();
      int down = 0;
      for (String[] p : packets) {
        double t = Double.parseDouble(p[0]);
        if (!p[5].equals(proto) || t < fromMs || t > toMs) {
          continue;
        }
        if (p[1].equals("c2s")) {
          up.add(t);
        } else {
          down++;
        }
      }
      if (w[1].equals("idle")) {
        // The call's last acknowledgements may trail its end by a round trip and an ACK delay.
        List<Double> late = new ArrayList<>();
        for (double t : up) {
          if (t > fromMs + 1_000) {
            late.add(t);
          }
        }
        summary.append(String.format("%s idle: %d packets from the client, %d to it, in %.1f s%n",
            w[0], late.size(), down, (toMs - fromMs - 1_000) / 1e3));
        assertThat(late).as("%s packets the idle client sent in %d s", w[0], idleSeconds).isEmpty();
      } else {
        // Bursts: the packets a PING costs (the PING, and over TCP the ACK of its answer) come
        // within a second; one burst per keep-alive interval once the waiting PINGs are over.
        List<Double> bursts = new ArrayList<>();
        for (double t : up) {
          if (bursts.isEmpty() || t - bursts.get(bursts.size() - 1) > 1_000) {
            bursts.add(t);
          }
        }
        List<Double> steadyGaps = new ArrayList<>();
        for (int i = 1; i < bursts.size(); i++) {
          double gap = bursts.get(i) - bursts.get(i - 1);
          if (gap > (KEEP_ALIVE_SECONDS - 1) * 1e3) { // the waiting PINGs come sooner than this
            steadyGaps.add((double) Math.round(gap));
          }
        }
        summary.append(String.format("%s quiet call: %d packets from the client in %d bursts; gaps at the"
            + " interval (ms): %s%n", w[0], up.size(), bursts.size(), steadyGaps));
        long expected = holdSeconds / KEEP_ALIVE_SECONDS;
        assertThat((long) steadyGaps.size()).as("%s PINGs at the keep-alive interval", w[0])
            .isBetween(expected - 2, expected);
        for (double gap : steadyGaps) {
          assertThat(gap).as("%s gap between PINGs", w[0])
              .isBetween(KEEP_ALIVE_SECONDS * 1e3 - 500, KEEP_ALIVE_SECONDS * 1e3 + 1_000);
        }
      }
    }
    Files.write(dir.resolve("summary.txt"), summary.toString().getBytes(StandardCharsets.UTF_8));
    System.out.print(summary);
  }
}
