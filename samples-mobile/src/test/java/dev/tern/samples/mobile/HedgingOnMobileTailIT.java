package dev.tern.samples.mobile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.netlab.emu.NetlabEmulator;
import dev.tern.netlab.emu.Netns;
import dev.tern.netlab.link.LinkProfile;
import dev.tern.netlab.link.LinkProfiles;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hedging on the {@code mobile-tail} link (2 Mbit/s, RTT 425 ms, 3.5% loss): the feed's API call
 * over {@code udp} with rpc-resilience's hedging policy against no hedging, the two alternating
 * call by call in one client process. Its p50 and p99 go to {@code target/hedging/summary.txt}.
 * Needs root; {@code -Dnetlab.emulator.skip=true} reports it as skipped. {@code verify} runs 12
 * calls of each; the measurement is its own command: {@code mvn -B -pl samples-mobile verify
 * -Dit.test=HedgingOnMobileTailIT -Dtern.hedging.calls=200}, the hedging delay 250 ms unless
 * {@code -Dtern.hedging.delay.millis=N} says otherwise.
 */
@Tag("root")
@Timeout(value = 30, unit = TimeUnit.MINUTES)
class HedgingOnMobileTailIT {
  private static final Pattern LINE = Pattern.compile("(no hedging|hedging \\d+ ms): (\\d+) calls, p50 (\\d+) ms,"
      + " p90 (\\d+) ms, p99 (\\d+) ms, max (\\d+) ms");

  @Test
  void hedgingTheApiCallAgainstNotHedgingIt() throws Exception {
    Assumptions.assumeFalse(Boolean.getBoolean("netlab.emulator.skip"), "netlab.emulator.skip=true");
    Netns.requireRoot();
    int calls = Integer.getInteger("tern.hedging.calls", 12);
    // 250 ms by default, under one round trip (425 ms): every call sends a copy, so the check that
    // copies were sent holds in a short run too.
    long delay = Long.getLong("tern.hedging.delay.millis", 250);
    Path dir = Paths.get(System.getProperty("tern.shrunk.jar")).resolveSibling("hedging");
    LinkProfile profile = LinkProfiles.get("mobile-tail");
    String out;
    try (FeedLab lab = FeedLab.start(profile, false, null, dir, 50_445)) {
      Process p = lab.emu.clientProcess(NetlabEmulator.javaCommand(System.getProperty("java.class.path"),
          HedgingProbe.class.getName(), lab.emu.serverAddress(), Integer.toString(lab.port), lab.pin(),
          Integer.toString(calls), Long.toString(delay))).redirectErrorStream(true).start();
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (InputStream in = p.getInputStream()) {
        in.transferTo(bytes);
      }
      assertThat(p.waitFor(20, TimeUnit.MINUTES)).isTrue();
      out = bytes.toString(StandardCharsets.UTF_8);
      assertThat(p.exitValue()).as("the probe's exit status; output:%n%s", out).isZero();
    }
    Matcher m = LINE.matcher(out);
    int variants = 0;
    StringBuilder lines = new StringBuilder();
    while (m.find()) {
      variants++;
      assertThat(Integer.parseInt(m.group(2))).as(m.group()).isEqualTo(calls);
      int end = out.indexOf('\n', m.start());
      lines.append(out, m.start(), end < 0 ? out.length() : end).append('\n');
    }
    assertThat(variants).as("both variants reported in:%n%s", out).isEqualTo(2);
    assertThat(out).as("hedged copies were sent").containsPattern("copies sent [1-9]");
    String summary = String.format("profile mobile-tail (%s), udp, the feed's Latest (page of 20), %d calls each,"
        + " alternating%n%s", profile.description(), calls, lines.toString().trim());
    Files.write(dir.resolve("summary.txt"), (summary + "\n").getBytes(StandardCharsets.UTF_8));
    System.out.println(summary);
  }
}
