package dev.tern.transport.udp.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.connection.ConnectionConfig;
import dev.tern.transport.udp.connection.Mutant;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The campaign slice that every build runs ({@link CampaignSubsetTest}: same runs, same seeds)
 * must fail when recovery is deliberately broken ({@link Mutant}); a campaign that passed anyway
 * would prove nothing about recovery. Each mutant is caught by the check aimed at what it breaks.
 */
@Timeout(600)
class CampaignMutantsTest {
  @ParameterizedTest
  @EnumSource(value = Mutant.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
  void theBuildsSliceFailsOnBrokenRecovery(Mutant mutant) throws Exception {
    Campaign.Summary s = Campaign.run(SimProfiles.names(), null, 500, 1_000_000L,
        Runtime.getRuntime().availableProcessors(),
        ConnectionConfig.defaults().withMutant(mutant), null);
    System.out.println(mutant + ": " + s.verdictLine());
    assertThat(s.passes()).as(mutant + " must fail the slice").isFalse();
    switch (mutant) {
      case PTO_4X:
        // Its timer-only losses cost four probe timeouts where one is justified.
        assertThat(s.boundViolations()).isNotEmpty();
        break;
      case NO_FAST_RETRANSMIT:
        assertThat(s.lateDeclarationShare()).isGreaterThan(Campaign.MAX_LATE_DECLARATION_SHARE);
        break;
      case NO_PACING:
        assertThat(s.burstViolations()).isNotEmpty();
        break;
      default:
        throw new AssertionError("a mutant without an expected check: " + mutant);
    }
  }
}
