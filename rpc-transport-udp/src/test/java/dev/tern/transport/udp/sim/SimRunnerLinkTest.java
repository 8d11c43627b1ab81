package dev.tern.transport.udp.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The simulator runs on links the user describes, and says so in its reproduce lines. */
class SimRunnerLinkTest {
  private static String run(int[] exit, String... args) {
    PrintStream out = System.out;
    PrintStream err = System.err;
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    PrintStream capture = new PrintStream(buffer, true, StandardCharsets.UTF_8);
    System.setOut(capture);
    System.setErr(capture);
    try {
      exit[0] = new CommandLine(new SimRunner()).execute(args);
    } finally {
      System.setOut(out);
      System.setErr(err);
    }
    return buffer.toString(StandardCharsets.UTF_8);
  }

  @Test
  void runsOnALinkGivenOnTheCommandLine() {
    int[] exit = new int[1];
    String out = run(exit, "--link", "down=2mbit,up=1mbit,rtt=80ms,loss=1%,name=my-link", "--runs", "3");
    assertThat(exit[0]).isZero();
    assertThat(out).contains("link my-link:").contains("rate 2 Mbit/s");
    assertThat(out.lines().filter(l -> l.contains("profile=my-link") && l.contains(" OK ")).count())
        .isEqualTo(3);
  }

  @Test
  void aRandomLinkIsTheSameForTheSameSeed() {
    int[] exit = new int[1];
    String first = run(exit, "--random-link", "--seed", "42");
    assertThat(exit[0]).isZero();
    String second = run(exit, "--random-link", "--seed", "42");
    assertThat(first.lines().filter(l -> l.startsWith("link ")).findFirst())
        .isEqualTo(second.lines().filter(l -> l.startsWith("link ")).findFirst());
  }

  @Test
  void aBadLinkIsRefusedNamingTheKey() {
    int[] exit = new int[1];
    String out = run(exit, "--link", "down=1mbit,up=1mbit,rtt=100ms,lossy=3");
    assertThat(exit[0]).isEqualTo(2);
    assertThat(out).contains("unknown key 'lossy'").doesNotContain("Exception");
  }

  @Test
  void aLinkCannotTakeABuiltInProfilesName() {
    int[] exit = new int[1];
    String out = run(exit, "--link", "down=1mbit,up=1mbit,rtt=100ms,name=mobile");
    assertThat(exit[0]).isEqualTo(2);
    assertThat(out).contains("'mobile' is a built-in profile's");
  }
}
