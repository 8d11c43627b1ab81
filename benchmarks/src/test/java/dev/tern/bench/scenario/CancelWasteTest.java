package dev.tern.bench.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CancelWasteTest {
  private static final String HEADER = "# t_ms\tdir\tbytes\tverdict\tdeliver_ms\tproto\tsrc\tsport\tdst\tdport\tflags\tpayload\n";

  private static String s2c(double t, String verdict, String deliver, int payload) {
    return t + "\ts2c\t" + (payload + 28) + "\t" + verdict + "\t" + deliver + "\tudp\t198.19.1.1\t443\t198.18.1.1\t40000\t-\t"
        + payload + "\n";
  }

  private static String c2s(double t, double deliver, int payload) {
    return t + "\tc2s\t" + (payload + 28) + "\tok\t" + deliver + "\tudp\t198.18.1.1\t40000\t198.19.1.1\t443\t-\t"
        + payload + "\n";
  }

  @Test
  void countsServerPayloadThatEnteredTheLinkAfterTheCancelReachedTheServer(@TempDir Path dir) throws Exception {
    Path log = dir.resolve("p.tsv");
    String before = s2c(90, "ok", "140", 1200);           // before the window: not counted
    String inFlight = s2c(101, "ok", "151", 1200);        // in the window, sent before the cancel arrived
    String cancel = c2s(102, 152, 60);                    // the cancel: reaches the server at 152
    String stillSent = s2c(151.5, "ok", "201.5", 1200);   // before the arrival: not counted
    String waste1 = s2c(152, "ok", "202", 1200);          // after the arrival: counted
    String lost = s2c(153, "RANDOM_LOSS", "-", 1200);     // did not cross: not counted
    String ack = c2s(160, 210, 0);                        // no payload: not an arrival
    String waste2 = s2c(170, "ok", "220", 300);           // counted
    String after = s2c(400, "ok", "450", 1200);           // after the window: not counted
    Files.writeString(log, HEADER + before + inFlight + cancel + stillSent + waste1 + lost + ack + waste2 + after);
    Map<Integer, Long> waste = CancelWaste.measure(log, Map.of(3, new double[] {100, 300}));
    assertThat(waste).containsExactly(Map.entry(3, 1500L));
  }

  @Test
  void aWindowWithoutAClientPacketIsLeftOut(@TempDir Path dir) throws Exception {
    Path log = dir.resolve("p.tsv");
    Files.writeString(log, HEADER + s2c(101, "ok", "151", 1200) + c2s(500, 550, 60));
    assertThat(CancelWaste.measure(log, Map.of(0, new double[] {100, 300}))).isEmpty();
  }
}
