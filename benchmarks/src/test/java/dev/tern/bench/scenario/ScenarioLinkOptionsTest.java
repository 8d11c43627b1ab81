package dev.tern.bench.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.netlab.link.CustomLinks;
import dev.tern.netlab.link.RandomLinks;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The scenario benchmark's command line takes links of the user's own and prints them in full;
 * {@code --dry-run} stops before any lab, so this needs no root. {@link ScenarioSmokeIT} runs one.
 */
class ScenarioLinkOptionsTest {
  @TempDir
  Path dir;

  private String out;
  private String err;

  private int run(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--dry-run", "--variants", "tcp:cubic", "--out", dir.resolve("out").toString()));
    PrintStream old = System.out;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    StringWriter errors = new StringWriter();
    try {
      System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
      CommandLine cl = new CommandLine(new ScenarioMain());
      cl.setErr(new PrintWriter(errors, true));
      return cl.execute(all.toArray(String[]::new));
    } finally {
      System.setOut(old);
      out = bytes.toString(StandardCharsets.UTF_8);
      err = errors.toString();
    }
  }

  @Test
  void aLinkOnTheCommandLineReplacesTheDefaultProfilesAndIsPrintedInFull() {
    assertThat(run("--link", "down=1.1mbit,up=0.5mbit,rtt=200ms,loss=0.6%,burst=6,jitter=50ms,reorder=0.2%,"
        + "queue=64kb,name=phone")).as(err).isZero();
    assertThat(out).contains("link phone: down=1.1mbit,up=0.5mbit,rtt=200ms,jitter=50ms,loss=0.6%,burst=6,"
        + "reorder=0.2%,reorder-delay=20ms,duplicate=0%,corrupt=0%,queue=64000b")
        .contains("server-to-client (down): rate 1.1 Mbit/s; delay 100 ms, jitter 50 ms peak-to-peak")
        .contains("client-to-server (up):   rate 0.5 Mbit/s")
        .contains("1 profiles x 1 variants").contains("] phone: ClientConfig")
        .doesNotContain("mobile-tail");
  }

  @Test
  void namedProfilesLinkFilesAndARandomLinkRunSideBySide() throws Exception {
    Files.writeString(dir.resolve("sat.link"), "name=sat\ndown=10mbit\nup=1mbit\nrtt=600ms\nloss=0.1%\n");
    assertThat(run("--profiles", "mobile", "--link-file", dir.resolve("sat.link").toString(), "--random-link",
        "--seed", "9")).as(err).isZero();
    assertThat(out).contains("random link ranges: " + RandomLinks.RANGES)
        .contains("link mobile: down=1.1mbit").contains("link sat: down=10mbit,up=1mbit,rtt=600ms")
        .contains("link random-9: " + CustomLinks.format(RandomLinks.draw(9)))
        .contains("3 profiles x 1 variants");
  }

  @Test
  void badLinksAreParameterErrorsNamingTheKeyAndTheValue() {
    assertThat(run("--link", "down=1mbit,upp=1mbit")).isEqualTo(2);
    assertThat(err).contains("--link: link spec 'down=1mbit,upp=1mbit': unknown key 'upp'").contains("accepted keys");
    assertThat(run("--link", "down=1mbps")).isEqualTo(2);
    assertThat(err).contains("key 'down': bad value '1mbps'; accepted: a rate in bits per second");
    assertThat(run("--profiles", "mobile", "--link", "name=mobile,rtt=10ms")).isEqualTo(2);
    assertThat(err).contains("two links are named 'mobile'");
    assertThat(run("--link-file", dir.resolve("none.link").toString())).isEqualTo(2);
    assertThat(err).contains("--link-file: cannot read link file").contains("none.link");
    assertThat(run("--profiles", "moon")).isEqualTo(2);
    assertThat(err).contains("unknown link profile 'moon'");
  }
}
