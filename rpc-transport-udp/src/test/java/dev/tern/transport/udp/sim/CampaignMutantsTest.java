package dev.tern.transport.udp.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.connection.ConnectionConfig;
import dev.tern.transport.udp.connection.Mutants;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The campaign slice that every build runs ({@link CampaignSubsetTest}: same runs, same seeds)
 * passes on the core as it is and fails when recovery is deliberately broken (the core's
 * test-only defects, {@link Mutants}); a campaign that passed anyway would prove nothing about
 * recovery. Each defect is caught by the check aimed at what it breaks.
 */
@Timeout(600)
class CampaignMutantsTest {
  static List<String> cores() {
    List<String> l = new ArrayList<>();
    l.add("NONE");
    l.addAll(Mutants.RECOVERY);
    return l;
  }

  @ParameterizedTest
  @MethodSource("cores")
  void theBuildsSliceFailsOnBrokenRecoveryAndPassesOnTheRealCore(String mutant) throws Exception {
    Campaign.Summary s = Campaign.run(SimProfiles.names(), null, 500, 1_000_000L,
        Runtime.getRuntime().availableProcessors(),
        Mutants.with(ConnectionConfig.defaults(), mutant), null);
    System.out.println(mutant + ": " + s.verdictLine());
    if (mutant.equals("NONE")) {
      assertThat(s.failures()).extracting(RunResult::line).isEmpty();
      assertThat(s.passes()).as("the real core must pass the slice").isTrue();
      return;
    }
    assertThat(s.passes()).as(mutant + " must fail the slice").isFalse();
    switch (mutant) {
      case "PTO_4X":
        // Its timer-only losses cost four probe timeouts where one is justified.
        assertThat(s.boundViolations()).isNotEmpty();
        break;
      case "NO_FAST_RETRANSMIT":
        assertThat(s.lateDeclarationShare()).isGreaterThan(Campaign.MAX_LATE_DECLARATION_SHARE);
        break;
      case "NO_PACING":
        assertThat(s.burstViolations()).isNotEmpty();
        break;
      default:
        throw new AssertionError("a mutant without an expected check: " + mutant);
    }
  }
}
