package dev.tern.bench.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The whole scenario pipeline, small: the packaged benchmark jar runs every scenario of DESIGN.md
 * but {@code scale} twice per variant on one profile (with short stall and fallback caps), in separate server and client JVMs, and must produce its JSON,
 * Markdown and SVG without a failed check. It measures nothing worth quoting; it keeps the pipeline
 * from rotting.
 */
@Tag("root") // network namespaces: a machine without root runs verify -DexcludedGroups=root
class ScenarioSmokeIT {
  private static final String PROFILE = System.getProperty("bench.smoke.profile", "mobile");
  /**
   * The reference and Tern's TCP transport on the other congestion control: the pipeline end to end
   * (both stacks, both kernel settings) in about a minute. Other transports are exercised by their
   * own test suites; a flaky transport must not hide a broken pipeline, nor the reverse.
   */
  private static final String VARIANTS = System.getProperty("bench.smoke.variants", "grpc-netty:cubic,tcp:bbr,auto");
  private static final List<String> SCENARIOS = List.of("unary", "feed", "bulk", "setup", "migration", "fallback");

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void runsEveryScenarioForEveryVariantAndWritesTheReports() throws Exception {
    Path jar = Path.of("target", "benchmarks.jar");
    assertThat(jar).as("the shaded benchmark jar (built in package)").exists();
    Path out = Path.of("target", "smoke-" + PROFILE);
    Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", jar.toString(), ScenarioMain.class.getName(), "--profiles", PROFILE, "--smoke", "--reps", "2",
        "--variants", VARIANTS, "--scenarios", String.join(",", SCENARIOS), "--stall-seconds", "2",
        "--fallback-seconds", "3", "--out", out.toString())
        .redirectErrorStream(true).redirectOutput(out.resolveSibling("smoke-" + PROFILE + ".log").toFile()).start();
    assertThat(p.waitFor(4, TimeUnit.MINUTES)).as("smoke run finished in time").isTrue();
    String log = Files.readString(out.resolveSibling("smoke-" + PROFILE + ".log"), StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as(log).isZero();
    String json = Files.readString(out.resolve("results.json"), StandardCharsets.UTF_8);
    assertThat(json).contains("\"violations\": []");
    for (String scenario : SCENARIOS) {
      assertThat(json).contains("\"scenario\": \"" + scenario + "\"");
    }
    // Kernel TCP reaches the server whatever UDP does; auto reports either its carrier or its failure.
    assertThat(json).contains("\"metric\": \"first p50\"").contains("\"metric\": \"steady_goodput_mbps\"")
        .contains("\"metric\": \"stall_ms\"").contains("\"phaseSeconds\"");
    if (VARIANTS.contains("auto")) {
      assertThat(json).containsPattern("\"metric\": \"(carried_by_tcp|failure_ms)\",\\s*\"variant\": \"auto\"");
    }
    assertThat(json).doesNotContain("\"metric\": \"failed\"");
    assertThat(Files.readString(out.resolve("results.md"))).contains("/ unary").contains("seq p50");
    assertThat(Files.readString(out.resolve("report.svg"))).contains("<polyline");
  }

  /**
   * A link of the user's own on the command line, two variants (Tern TCP, and Tern's own udp on
   * CUBIC, which the processes must build with that controller), one repetition of two scenarios:
   * the link reaches the emulator as described, is printed in full, and its spec is in the results.
   */
  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void runsOnALinkGivenOnTheCommandLine() throws Exception {
    Path jar = Path.of("target", "benchmarks.jar");
    assertThat(jar).as("the shaded benchmark jar (built in package)").exists();
    Path out = Path.of("target", "smoke-own-link");
    Path logFile = out.resolveSibling("smoke-own-link.log");
    String link = "down=4mbit,up=2mbit,rtt=60ms,loss=0.5%,burst=3,jitter=10ms,reorder=0.2%,queue=64kb,name=own";
    Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", jar.toString(), ScenarioMain.class.getName(), "--link", link, "--smoke", "--reps", "1",
        "--variants", "tcp:cubic,udp:cubic", "--scenarios", "unary,bulk", "--out", out.toString())
        .redirectErrorStream(true).redirectOutput(logFile.toFile()).start();
    assertThat(p.waitFor(270, TimeUnit.SECONDS)).as("smoke run finished in time").isTrue();
    String log = Files.readString(logFile, StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as(log).isZero();
    String canonical = "down=4mbit,up=2mbit,rtt=60ms,jitter=10ms,loss=0.5%,burst=3,reorder=0.2%,reorder-delay=20ms,"
        + "duplicate=0%,corrupt=0%,queue=64000b";
    assertThat(log).contains("link own: " + canonical).contains("server-to-client (down): rate 4 Mbit/s")
        .contains("own-tcp-cubic starting (link own").contains("own-udp-cubic starting (link own");
    String json = Files.readString(out.resolve("results.json"), StandardCharsets.UTF_8);
    assertThat(json).contains("\"violations\": []").contains("\"spec\": \"" + canonical + "\"")
        .contains("\"profile\": \"own\"").contains("\"scenario\": \"unary\"").contains("\"scenario\": \"bulk\"")
        .contains("\"variant\": \"udp/cubic\"");
  }
}
