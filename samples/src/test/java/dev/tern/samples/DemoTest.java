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
  }
}
