package dev.tern.samples.mobile;

import static org.assertj.core.api.Assertions.assertThat;

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
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The feed sample's app screen ({@link FeedApp}) through netlab on the {@code mobile} link, run by
 * the shrunk client as an app: a first start, a restart on the state the first one kept (0-RTT),
 * and a first start where the network drops UDP (fallback to {@code okhttp}). The outputs go to
 * {@code target/feed-app/summary.txt}. Needs root; {@code -Dnetlab.emulator.skip=true} reports it
 * as skipped. Another profile: {@code -Dtern.feed.profile=NAME}.
 */
@Tag("root")
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class FeedAppOnMobileIT {
  @Test
  void theAppScreenOnAMobileLinkAfterARestartAndWithUdpBlocked() throws Exception {
    Assumptions.assumeFalse(Boolean.getBoolean("netlab.emulator.skip"), "netlab.emulator.skip=true");
    Netns.requireRoot();
    LinkProfile profile = LinkProfiles.get(System.getProperty("tern.feed.profile", "mobile"));
    Path dir = Paths.get(System.getProperty("tern.shrunk.jar")).resolveSibling("feed-app");
    String first;
    String restarted;
    String blocked;
    try (FeedLab lab = FeedLab.start(profile, false, null, dir, 50_446)) {
      Path state = dir.resolve("app-state");
      Files.deleteIfExists(state);
      first = run(lab, "--state", state.toString(), "app");
      restarted = run(lab, "--state", state.toString(), "app");
    }
    try (FeedLab lab = FeedLab.start(profile, true, null, dir.resolve("blocked"), 50_447)) {
      Path state = dir.resolve("blocked-state");
      Files.deleteIfExists(state);
      blocked = run(lab, "--state", state.toString(), "app");
    }
    assertThat(first).contains("app: Latest (urgency 0) over udp").contains("scrolled off screen")
        .contains("app: Latest again (urgency 0, sent while 6 images streamed)").contains("early data accepted: false");
    assertThat(restarted).contains("app: Latest (urgency 0) over udp").contains("early data accepted: true");
    assertThat(blocked).contains("app: Latest (urgency 0) over okhttp").contains("udp was still connecting");
    String summary = String.format("profile %s (%s)%n%nfirst start:%n%s%nrestarted:%n%s%nUDP blocked:%n%s",
        profile.name(), profile.description(), first, restarted, blocked);
    Files.write(dir.resolve("summary.txt"), summary.getBytes(StandardCharsets.UTF_8));
    System.out.print(summary);
  }

  /** Runs the shrunk client once; its output, after checking that it exited 0. */
  private static String run(FeedLab lab, String... args) throws Exception {
    Process p = lab.client(args).start();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (InputStream in = p.getInputStream()) {
      in.transferTo(out);
    }
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("the client exited").isTrue();
    String text = out.toString(StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as("the client's exit status; output:%n%s", text).isZero();
    return text;
  }
}
