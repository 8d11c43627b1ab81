package dev.tern.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(120)
class DemoTest {
  @Test
  void runsTheGreeterOverEveryTransportOnTheClassPath() throws Exception {
    PrintStream original = System.out;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      Demo.main(new String[0]);
    } finally {
      System.setOut(original);
    }
    String output = captured.toString(StandardCharsets.UTF_8);
    original.print(output);
    assertThat(output).containsPattern("(?m)^tcp\\s+1\\s+yes\\s")
        .containsPattern("(?m)^inprocess\\s+1\\s+no\\s")
        .containsPattern("(?m)^udp\\s+1\\s+noise\\s")
        .doesNotContain("FAILED");
    // The metrics table: each side counted the 202 calls (1 + 200 + the streaming call), all OK;
    // the in-process server's connection and bytes, which that transport counts.
    for (String transport : new String[] {"inprocess", "tcp", "udp"}) {
      assertThat(output).containsPattern("(?m)^server\\s+" + transport + "\\s+202\\s+202\\s+0\\s")
          .containsPattern("(?m)^client\\s+" + transport + "\\s+202\\s+202\\s+0\\s");
    }
    assertThat(output).containsPattern("(?m)^server\\s+inprocess\\s+202\\s+202\\s+0\\s+1\\s+0\\s+0\\s+[1-9]\\d*\\s+[1-9]");
  }
}
