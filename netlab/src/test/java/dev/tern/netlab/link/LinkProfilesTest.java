package dev.tern.netlab.link;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.assertj.core.data.Percentage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LinkProfilesTest {
  @Test
  void everyProfileLoads() {
    assertThat(LinkProfiles.names()).contains("lan", "wifi", "mobile", "mobile-tail", "crowded",
        "lossy-fat", "lte-verizon", "lte-tmobile", "lte-att", "3g-tmobile", "evdo-verizon");
    for (String name : LinkProfiles.names()) {
      LinkProfile p = LinkProfiles.get(name);
      assertThat(p.name()).isEqualTo(name);
      assertThat(p.clientToServer()).isNotNull();
    }
  }

  @Test
  void mobileMatchesTheFieldNotes() {
    LinkProfile p = LinkProfiles.get("mobile");
    LinkConfig c = p.serverToClient();
    assertThat(c.rateBitsPerSecond()).isEqualTo(1_100_000L);
    assertThat(p.rttNs()).isEqualTo(200_000_000L);
    assertThat(c.burstLossRate()).isEqualTo(0.006);
    assertThat(c.meanBurstPackets()).isEqualTo(6);
    assertThat(c.reorderProbability()).isEqualTo(0.002);
    assertThat(c.jitterNs()).isEqualTo(50_000_000L);
    assertThat(c.queueLimitBytes()).isEqualTo(55_000L);
    // 1 KiB request and response: 200 ms plus two serialisations of 7.4 ms.
    assertThat(p.idealRoundTripNs(1024, 1024) / 1e6).isCloseTo(214.9, Percentage.withPercentage(0.1));
  }

  @Test
  void traceProfilesReplayTheUplinkAndDownlinkFiles() {
    LinkProfile p = LinkProfiles.get("lte-verizon");
    assertThat(p.serverToClient().trace().name()).isEqualTo("Verizon-LTE-short.down");
    assertThat(p.clientToServer().trace().name()).isEqualTo("Verizon-LTE-short.up");
    assertThat(p.serverToClient().meanRateBitsPerSecond() / 1e6).isCloseTo(5.03, Percentage.withPercentage(1));
  }

  @Test
  void unknownNamesFailClearly() {
    assertThatThrownBy(() -> LinkProfiles.get("moon")).hasMessageContaining("moon").hasMessageContaining("mobile");
    assertThatThrownBy(() -> LinkProfiles.bundledTrace("moon.up")).hasMessageContaining("moon.up")
        .hasMessageContaining("Verizon-LTE-short.up");
  }

  @Test
  void aBadOverrideNamesThePath(@TempDir Path empty) {
    withOverride("/nonexistent/traces", () -> {
      assertThatThrownBy(() -> LinkProfiles.get("lte-verizon")).hasMessageContaining("/nonexistent/traces")
          .hasMessageContaining(LinkProfiles.TRACES_DIR_PROPERTY);
    });
    withOverride(empty.toString(), () -> {
      assertThatThrownBy(() -> LinkProfiles.get("lte-att"))
          .hasMessageContaining(empty.resolve("ATT-LTE-driving-2016.up").toString());
    });
  }

  @Test
  void anOverrideReplacesTheBundledTraces(@TempDir Path dir) throws Exception {
    // A user's own "Verizon" trace: 12 packets per 12 ms up (12 Mbit/s), one per 12 ms down (1 Mbit/s).
    Files.writeString(dir.resolve("Verizon-LTE-short.up"), "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n");
    Files.writeString(dir.resolve("Verizon-LTE-short.down"), "12\n");
    withOverride(dir.toString(), () -> {
      LinkProfile p = LinkProfiles.get("lte-verizon");
      assertThat(p.clientToServer().trace().source()).isEqualTo(dir.resolve("Verizon-LTE-short.up").toString());
      assertThat(p.clientToServer().meanRateBitsPerSecond()).isEqualTo(12_000_000L);
      assertThat(p.serverToClient().meanRateBitsPerSecond()).isEqualTo(1_000_000L);
    });
    // Without the property the profile no longer reads the user's files.
    assertThat(LinkProfiles.get("lte-verizon").serverToClient().trace().source()).doesNotContain(dir.toString());
  }

  private static void withOverride(String dir, Runnable body) {
    String old = System.getProperty(LinkProfiles.TRACES_DIR_PROPERTY);
    System.setProperty(LinkProfiles.TRACES_DIR_PROPERTY, dir);
    try {
      body.run();
    } finally {
      if (old == null) {
        System.clearProperty(LinkProfiles.TRACES_DIR_PROPERTY);
      } else {
        System.setProperty(LinkProfiles.TRACES_DIR_PROPERTY, old);
      }
    }
  }
}
