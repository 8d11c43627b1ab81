package dev.tern.netlab.emu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.netlab.link.CustomLinks;
import dev.tern.netlab.link.RandomLinks;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The emulator's command line takes the same link options as the benchmark (root-free: --print-link). */
class NetlabCliTest {
  private String out;
  private String err;

  private int run(String... args) {
    PrintStream old = System.out;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    StringWriter errors = new StringWriter();
    try {
      System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
      CommandLine cl = new CommandLine(new NetlabCli());
      cl.setErr(new PrintWriter(errors, true));
      return cl.execute(args);
    } finally {
      System.setOut(old);
      out = bytes.toString(StandardCharsets.UTF_8);
      err = errors.toString();
    }
  }

  @Test
  void aLinkOfOneselfIsPrintedInFullWithTheOverridesApplied() {
    assertThat(run("--link", "down=1.1mbit,up=0.5mbit,rtt=200ms,loss=0.6%,burst=6,jitter=50ms,reorder=0.2%,"
        + "queue=64kb,name=phone", "--duplicate", "0.001", "--print-link")).as(err).isZero();
    assertThat(out).contains("link phone: down=1.1mbit,up=0.5mbit,rtt=200ms,jitter=50ms,loss=0.6%,burst=6,"
        + "reorder=0.2%,reorder-delay=20ms,duplicate=0.1%,corrupt=0%,queue=64000b")
        .contains("server-to-client (down): rate 1.1 Mbit/s").contains("client-to-server (up):   rate 0.5 Mbit/s")
        .doesNotContain("READY");
  }

  @Test
  void aRandomLinkPrintsItsRangesAndFollowsTheSeed() {
    assertThat(run("--random-link", "--seed", "5", "--print-link")).as(err).isZero();
    assertThat(out).contains("random link ranges: " + RandomLinks.RANGES)
        .contains("link random-5: " + CustomLinks.format(RandomLinks.draw(5)));
  }

  @Test
  void badLinksAreParameterErrorsNamingTheKey() {
    assertThat(run("--link", "down=1mbit,rtt=20", "--print-link")).isEqualTo(2);
    assertThat(err).contains("--link: link spec 'down=1mbit,rtt=20': key 'rtt': bad value '20'; accepted: a time");
    assertThat(run("--link", "rtt=20ms", "--random-link", "--print-link")).isEqualTo(2);
    assertThat(err).contains("give one link");
    assertThat(run("--profile", "mobile", "--random-link", "--print-link")).isEqualTo(2);
    assertThat(err).contains("not both");
  }

  @Test
  void aNamedProfileStillWorks() {
    assertThat(run("--profile", "mobile", "--print-link")).as(err).isZero();
    assertThat(out).contains("link mobile: down=1.1mbit,up=1.1mbit,rtt=200ms,jitter=50ms,loss=0.6%,burst=6,"
        + "reorder=0.2%,reorder-delay=30ms,duplicate=0%,corrupt=0%,queue=55000b");
  }

  @Test
  void helpShowsTheLinkOptionsVerbatim() {
    StringWriter help = new StringWriter();
    PrintStream oldErr = System.err;
    ByteArrayOutputStream warnings = new ByteArrayOutputStream();
    try {
      System.setErr(new PrintStream(warnings, true, StandardCharsets.UTF_8));
      CommandLine cl = new CommandLine(new NetlabCli());
      cl.setOut(new PrintWriter(help, true));
      assertThat(cl.execute("--help")).isZero();
    } finally {
      System.setErr(oldErr);
    }
    assertThat(help.toString()).contains("--link=SPEC").contains("loss=0.6%,burst=6").contains("--link-file=FILE")
        .contains("--random-link");
    assertThat(warnings.toString(StandardCharsets.UTF_8)).doesNotContain("Could not format");
  }
}
