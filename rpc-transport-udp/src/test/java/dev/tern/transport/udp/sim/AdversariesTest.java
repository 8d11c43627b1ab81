package dev.tern.transport.udp.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.connection.ConnectionConfig;
import dev.tern.transport.udp.frame.TransportError;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Each adversarial profile of the campaign ({@link Adversaries}) over 25 seeds, every attack
 * over each of its links: the spoofer and the replayer leave no state and cost no delivery, the
 * optimistic acknowledger is closed with PROTOCOL_VIOLATION, rebinding and moving clients lose
 * no call. The full campaign runs them with every other profile (`--profile all`).
 */
@Timeout(600)
class AdversariesTest {
  private static final int RUNS = 25;
  private static final long SEED = 2_000_000L;

  private static Campaign.Summary campaign(String profile) throws Exception {
    Campaign.Summary s = Campaign.run(List.of(profile), null, RUNS, SEED,
        Runtime.getRuntime().availableProcessors(), ConnectionConfig.defaults(), null);
    System.out.println(profile + ": " + s.verdictLine());
    return s;
  }

  @Test
  void theSpooferLeavesNoStateAndCostsNoDelivery() throws Exception {
    Campaign.Summary s = campaign("adv-spoofer");
    assertThat(s.failures()).extracting(RunResult::line).isEmpty();
    assertThat(s.boundViolations()).extracting(RunResult::line).isEmpty();
    for (RunResult r : s.results) {
      assertThat(r.maxServerConnections).as(r.line()).isEqualTo(1);
      assertThat(r.adversary).as("the attack ran").doesNotContain("spoofed=0 ");
    }
  }

  @Test
  void theReplayerLeavesNoStateAndCostsNoDelivery() throws Exception {
    Campaign.Summary s = campaign("adv-replayer");
    assertThat(s.failures()).extracting(RunResult::line).isEmpty();
    assertThat(s.boundViolations()).extracting(RunResult::line).isEmpty();
    for (RunResult r : s.results) {
      assertThat(r.maxServerConnections).as(r.line()).isEqualTo(1);
    }
    // A unary call's dozen datagrams may escape a 10% replay; most runs do not.
    assertThat(s.results.stream().filter(r -> !r.adversary.contains("replayed=0 ")).count())
        .as("runs with replays").isGreaterThanOrEqualTo(RUNS / 2);
  }

  @Test
  void theOptimisticAcknowledgerIsClosedWithProtocolViolation() throws Exception {
    Campaign.Summary s = campaign("adv-optimistic-acker");
    assertThat(s.failures()).extracting(RunResult::line).isEmpty();
    for (RunResult r : s.results) {
      assertThat(r.adversary).as(r.line()).contains("error=" + TransportError.PROTOCOL_VIOLATION);
    }
  }

  @Test
  void anOptimisticAcknowledgerOfAnHonestServerIsNotMistakenForOne() {
    // The same feed with an honest client completes: skipped packet numbers cost it nothing.
    RunResult r = SimRun.run("harsh-mix", Scenario.FEED, SEED, ConnectionConfig.defaults(), -1);
    assertThat(r.failure).as(r.line()).isNull();
  }

  @Test
  void aClientBehindANatThatRebindsAboutEverySecondLosesNoCall() throws Exception {
    Campaign.Summary s = campaign("adv-nat-rebinding");
    assertThat(s.failures()).extracting(RunResult::line).isEmpty();
    assertThat(s.boundViolations()).extracting(RunResult::line).isEmpty();
    assertThat(s.results).anySatisfy(r -> assertThat(r.clientPathChanges).isGreaterThan(1));
    // RFC 9000 §9.3: on no seed did the server send a path it had moved to more than three times
    // what came from it before validating it; and it did send to such paths (the check ran).
    long toUnvalidated = 0;
    for (RunResult r : s.results) {
      assertThat(r.pathAmplificationViolations).as(r.line()).isZero();
      assertThat(r.simulatorSpins).as("timers left in the past: %s", r.line()).isZero();
      toUnvalidated += r.bytesToUnvalidatedPaths;
    }
    assertThat(toUnvalidated).as("bytes sent to paths before their validation").isPositive();
  }

  @Test
  void aLongCallBehindARebindingNatKeepsShowingTheServerItsAddress() {
    // The seed on which the client's waiting PINGs had backed off past the keep-alive interval
    // and stopped: after the next rebinding it said nothing for up to 15 s, and the server,
    // whose packets all went to the address the client had left, closed the connection
    // (PEER_UNRESPONSIVE). Every timer lies ahead of the one that ran: no spin, drain included.
    long seed = SEED + 22;
    RunResult r = Adversaries.run("adv-nat-rebinding", Campaign.scenarioFor(seed), seed,
        ConnectionConfig.defaults());
    assertThat(r.failure).as(r.line()).isNull();
    assertThat(r.clientPathChanges).as(r.line()).isGreaterThan(1);
    assertThat(r.simulatorSpins).as(r.line()).isZero();
  }

  @Test
  void aClientMovingToAnotherNetworkLosesNoCall() throws Exception {
    Campaign.Summary s = campaign("adv-moving-client");
    assertThat(s.failures()).extracting(RunResult::line).isEmpty();
    assertThat(s.boundViolations()).extracting(RunResult::line).isEmpty();
    for (RunResult r : s.results) {
      assertThat(r.adversary).as(r.line()).contains("moved=true").contains("followed=1");
    }
  }

  @Test
  void theMovedClientsServerMeasuresTheNewNetworkAndTheRebindingOneKeepsItsEstimate() {
    // wifi (20 ms) to crowded (300 ms): after the move the server's RTT estimate, min RTT
    // included, is the new network's (RFC 9000 §9.4), not the old one's.
    long seed = 3; // Adversaries.MOVES[3]: wifi -> crowded
    RunResult r = Adversaries.run("adv-moving-client", Scenario.FEED, seed,
        ConnectionConfig.defaults());
    assertThat(r.failure).as(r.line()).isNull();
    assertThat(r.adversary).contains("from=wifi").contains("to=crowded");
    assertThat(r.serverPathResets).as(r.line()).isEqualTo(1);
    assertThat(r.serverMinRttNs).as(r.line()).isGreaterThan(250_000_000L);
    // Behind a rebinding NAT only the port changes: validated, but nothing reset.
    RunResult n = Adversaries.run("adv-nat-rebinding", Scenario.FEED, 1,
        ConnectionConfig.defaults());
    assertThat(n.failure).as(n.line()).isNull();
    assertThat(n.serverPathsValidated).as(n.line()).isGreaterThan(0);
    assertThat(n.serverPathResets).as(n.line()).isZero();
  }

  @Test
  void afterAServerRestartTheClientLearnsItAndANewConnectionCarriesTheNextCalls()
      throws Exception {
    Campaign.Summary s = campaign("adv-server-restart");
    assertThat(s.failures()).extracting(RunResult::line).isEmpty();
    assertThat(s.boundViolations()).extracting(RunResult::line).isEmpty();
    for (RunResult r : s.results) {
      // The restarted server answers the old connection's next packet with a stateless reset
      // (RFC 9000 §10.3): the client learns it from that packet, not at its 30 s idle timeout.
      assertThat(r.adversary).as(r.line()).contains("closedBy=STATELESS_RESET")
          .contains("restartedServerConnections=0").doesNotContain("strayDropped=0 ");
      java.util.regex.Matcher learned = java.util.regex.Pattern.compile("learnedAfter=(\\d+)ms").matcher(r.adversary);
      assertThat(learned.find()).as(r.line()).isTrue();
      assertThat(Long.parseLong(learned.group(1))).as("ms until the client learned: %s", r.line()).isLessThan(30_000);
    }
  }
}
