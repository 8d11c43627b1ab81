package dev.tern.transport.udp.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.connection.ConnectionConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** One run of each scenario on a few profiles, each checked end to end. */
class SimSmokeTest {
  @ParameterizedTest
  @CsvSource({"lan,UNARY", "wifi,CONCURRENT", "mobile,FEED", "lossy-fat,BULK", "crowded,MIXED",
      "harsh-mix,FEED", "mobile-tail,UNARY"})
  void deliversEveryByteAndEndsEmpty(String profile, String scenario) {
    RunResult r = SimRun.run(profile, Scenario.of(scenario), 1, ConnectionConfig.defaults(), -1);
    System.out.println(r.line());
    assertThat(r.failure).as(r.line()).isNull();
    assertThat(r.completionNs).isPositive();
  }
}
