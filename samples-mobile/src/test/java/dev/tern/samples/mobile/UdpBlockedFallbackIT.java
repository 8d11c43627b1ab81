package dev.tern.samples.mobile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.netlab.emu.Netns;
import dev.tern.netlab.link.LinkProfile;
import dev.tern.netlab.link.LinkProfiles;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * UDP blocked on the {@code mobile} link (netlab drops every UDP packet, as a middlebox that
 * blocks UDP): fresh processes of the shrunk sample client, each with a state file of its own,
 * race {@code udp} against {@code okhttp}, and each first call goes over {@code okhttp}; then a
 * process started again on the last one's state file (an app restarted) goes straight to
 * {@code okhttp}, {@code udp} not started. The first-call times (from the channel's creation to
 * the first reply, in the client) and their median go to {@code target/fallback/summary.txt}.
 * Needs root; {@code -Dnetlab.emulator.skip=true} reports it as skipped. {@code verify} runs 3
 * fresh processes; the measurement is its own command, with 20: {@code mvn -B -pl samples-mobile
 * verify -Dit.test=UdpBlockedFallbackIT -Dtern.fallback.processes=20}.
 */
@Tag("root")
@Timeout(value = 20, unit = TimeUnit.MINUTES)
class UdpBlockedFallbackIT {
  private static final Pattern FIRST = Pattern.compile("race: ok over (\\w+): .* \\(first call (\\d+) ms\\)");
  private static final Pattern WHY = Pattern.compile("race: why (.*)");

  @Test
  void withUdpBlockedTheFirstCallGoesOverTcpAndARestartedClientSkipsUdp() throws Exception {
    Assumptions.assumeFalse(Boolean.getBoolean("netlab.emulator.skip"), "netlab.emulator.skip=true");
    Netns.requireRoot();
    int processes = Integer.getInteger("tern.fallback.processes", 3);
    Path dir = Paths.get(System.getProperty("tern.shrunk.jar")).resolveSibling("fallback");
    LinkProfile mobile = LinkProfiles.get("mobile");
    List<Long> firstCalls = new ArrayList<>();
    List<String> whys = new ArrayList<>();
    String[] restarted;
    try (FeedLab lab = FeedLab.start(mobile, true, null, dir, 50_444)) {
      Path state = null;
      for (int i = 0; i < processes; i++) {
        state = dir.resolve("state-" + i);
        Files.deleteIfExists(state);
        String[] r = run(lab, state);
        firstCalls.add(Long.parseLong(r[1]));
        whys.add(r[2]);
        assertThat(r[0]).as("the transport of fresh client %d; why: %s", i, r[2]).isEqualTo("okhttp");
      }
      restarted = run(lab, state);
    }
    assertThat(restarted[0]).as("the restarted client's transport").isEqualTo("okhttp");
    assertThat(restarted[2]).as("why the restarted client chose it")
        .contains("tried first as the transport that worked last time").contains("udp not started");

    List<Long> sorted = new ArrayList<>(firstCalls);
    Collections.sort(sorted);
    double median = sorted.size() % 2 == 1 ? sorted.get(sorted.size() / 2)
        : (sorted.get(sorted.size() / 2 - 1) + sorted.get(sorted.size() / 2)) / 2.0;
    String summary = String.format("profile mobile (%s), UDP blocked, %d fresh client processes%n"
        + "first call, ms from the channel's creation: median %.0f, min %d, max %d; all: %s%n"
        + "fresh client's why (first): %s%n"
        + "restarted client: first call %s ms over %s; why: %s%n",
        mobile.description(), processes, median, sorted.get(0), sorted.get(sorted.size() - 1), firstCalls,
        whys.get(0), restarted[1], restarted[0], restarted[2]);
    Files.write(dir.resolve("summary.txt"), summary.getBytes(StandardCharsets.UTF_8));
    System.out.print(summary);
  }

  /** One client process: {transport, first call ms, why}. */
  private static String[] run(FeedLab lab, Path state) throws Exception {
    Process client = lab.client("--state", state.toString(), "race").start();
    String out = new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(client.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(client.exitValue()).as("exit status; output:%n%s", out).isZero();
    Matcher first = FIRST.matcher(out);
    Matcher why = WHY.matcher(out);
    assertThat(first.find()).as("the first call's line in:%n%s", out).isTrue();
    assertThat(why.find()).as("the why line in:%n%s", out).isTrue();
    return new String[] {first.group(1), first.group(2), why.group(1)};
  }
}
