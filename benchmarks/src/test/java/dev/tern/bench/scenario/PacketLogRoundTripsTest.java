package dev.tern.bench.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PacketLogRoundTripsTest {
  private static String pkt(double t, boolean c2s, String flags, int payload, int port, String verdict) {
    String c = "198.18.1.1\t" + port;
    String s = "198.19.1.1\t443";
    return t + "\t" + (c2s ? "c2s" : "s2c") + "\t" + (52 + payload) + "\t" + verdict + "\t" + (t + 100) + "\ttcp\t"
        + (c2s ? c + "\t" + s : s + "\t" + c) + "\t" + flags + "\t" + payload;
  }

  @Test
  void countsHandshakeSettingsAndRequestAsThreeRoundTripsOfTheNewConnectionOnly(@TempDir Path dir) throws Exception {
    Path log = dir.resolve("log.tsv");
    Files.write(log, List.of("# header",
        pkt(5, true, "A", 300, 1000, "ok"),      // an older connection: ignored
        pkt(10, true, "S", 0, 2000, "ok"),
        pkt(11, true, "A", 200, 1000, "ok"),     // older connection, inside the window: ignored
        pkt(110, false, "SA", 0, 2000, "ok"),
        pkt(210, true, "A", 0, 2000, "ok"),      // pure ACK: ignored
        pkt(211, true, "AP", 57, 2000, "ok"),
        pkt(300, false, "AP", 27, 2000, "RANDOM_LOSS"), // dropped: ignored
        pkt(310, false, "AP", 27, 2000, "ok"),
        pkt(410, true, "AP", 1213, 2000, "ok"),
        pkt(510, false, "AP", 1167, 2000, "ok"),
        pkt(700, true, "AF", 0, 2000, "ok"),
        pkt(800, false, "AF", 0, 2000, "ok")));   // after the window
    List<Integer> rts = PacketLogRoundTrips.count(log, List.of(new double[] {8, 600}));
    assertThat(rts).containsExactly(3);
  }
}
