package dev.tern.bench.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class LinkSpecTest {
  @Test
  void mobileIdealIsRttPlusSerialisationAndFloorAllowsTheJitter() {
    LinkSpec mobile = LinkSpec.byName("mobile");
    double serialisation = 2 * 1024 * 8 * 1000.0 / 1.1e6;
    assertThat(mobile.idealExchangeMillis(1024, 1024)).isCloseTo(200 + serialisation, within(0.01));
    assertThat(mobile.floorExchangeMillis(1024, 1024)).isCloseTo(150 + serialisation, within(0.01));
  }

  @Test
  void lossyFatGoodputIdealIsRateTimesDelivery() {
    assertThat(LinkSpec.byName("lossy-fat").idealGoodputBitsPerSecond()).isCloseTo(98.5e6, within(1.0));
  }

  @Test
  void loopbackIsUnshaped() {
    assertThat(LinkSpec.byName("loopback").shaped()).isFalse();
  }
}
