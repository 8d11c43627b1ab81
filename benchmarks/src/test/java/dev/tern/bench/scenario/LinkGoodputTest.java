package dev.tern.bench.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LinkGoodputTest {
  private static final String HEADER = "# t_ms\tdir\tbytes\tverdict\tdeliver_ms\tproto\tsrc\tsport\tdst\tdport\tflags\tpayload\n";

  /** A 1 Mbit/s link: a 1250-byte payload every 10 ms. */
  private static String download(double startMs, int packets, String dport) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < packets; i++) {
      double t = startMs + i * 10;
      sb.append(t).append("\ts2c\t1302\tok\t").append(t + 50).append("\ttcp\t198.19.1.1\t443\t198.18.1.1\t")
          .append(dport).append("\tA\t1250\n");
    }
    return sb.toString();
  }

  @Test
  void measuresTheSecondHalfOnTheLinksClockAndPicksTheLargestFlow(@TempDir Path dir) throws Exception {
    Path log = dir.resolve("p.tsv");
    String other = "5.0\ts2c\t200\tok\t55.0\ttcp\t198.19.1.1\t443\t198.18.1.1\t40001\tPA\t148\n";
    String dropped = "7.0\ts2c\t1302\tRANDOM_LOSS\t-\ttcp\t198.19.1.1\t443\t198.18.1.1\t40000\tA\t1250\n";
    String ack = "8.0\tc2s\t52\tok\t58.0\ttcp\t198.18.1.1\t40000\t198.19.1.1\t443\tA\t0\n";
    Files.writeString(log, HEADER + other + dropped + ack + download(0, 100, "40000") + download(5000, 10, "40002"));
    Map<Integer, LinkGoodput.Download> d = LinkGoodput.measure(log, Map.of(0, new double[] {0, 2000}));
    assertThat(d).containsOnlyKeys(0);
    LinkGoodput.Download dl = d.get(0);
    assertThat(dl.payloadBytes()).isEqualTo(100 * 1250);
    assertThat(dl.halfMs()).isEqualTo(49 * 10 + 50);
    assertThat(dl.lastMs()).isEqualTo(99 * 10 + 50);
    assertThat(dl.secondHalfBytes()).isEqualTo(50 * 1250);
    // The application got 90% of the payload (the rest was framing): 50 x 1250 B x 0.9 over 500 ms.
    assertThat(dl.steadyMbps(0.9 * 100 * 1250)).isCloseTo(50 * 1250 * 0.9 * 8 / 500e3, within(1e-9));
    // More application bytes than payload cannot raise the figure above the payload's rate.
    assertThat(dl.steadyMbps(1e9)).isCloseTo(50 * 1250 * 8 / 500e3, within(1e-9));
  }

  @Test
  void unmeasurableWithoutASpan() {
    LinkGoodput.Download one = LinkGoodput.of(java.util.List.of(new double[] {10, 1250}), 1250);
    assertThat(one.steadyMbps(1250)).isNaN();
  }
}
