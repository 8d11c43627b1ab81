package dev.tern.netlab.link;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.assertj.core.data.Percentage;
import org.junit.jupiter.api.Test;

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
  void unknownNamesAndMissingDirectoriesFailClearly() {
    assertThatThrownBy(() -> LinkProfiles.get("moon")).hasMessageContaining("moon").hasMessageContaining("mobile");
    String old = System.getProperty(LinkProfiles.TRACES_DIR_PROPERTY);
    System.setProperty(LinkProfiles.TRACES_DIR_PROPERTY, "/nonexistent/traces");
    try {
      assertThatThrownBy(() -> LinkProfiles.tracesDirectory()).hasMessageContaining("/nonexistent/traces");
    } finally {
      if (old == null) {
        System.clearProperty(LinkProfiles.TRACES_DIR_PROPERTY);
      } else {
        System.setProperty(LinkProfiles.TRACES_DIR_PROPERTY, old);
      }
    }
  }
}
