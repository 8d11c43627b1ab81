package dev.tern.transport.udp.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.netlab.link.Link;
import dev.tern.netlab.link.LinkProfile;
import dev.tern.transport.udp.connection.AddressValidation;
import dev.tern.transport.udp.connection.AddressValidation.RetryPolicy;
import dev.tern.transport.udp.connection.Connection;
import dev.tern.transport.udp.connection.ConnectionConfig;
import dev.tern.transport.udp.connection.ConnectionListener;
import dev.tern.transport.udp.connection.ServerDemux;
import dev.tern.transport.udp.handshake.PinnedServerKey;
import dev.tern.transport.udp.handshake.ServerStaticKey;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Address validation in the simulator (docs/protocol.md §9.7-§9.9): before validation the
 * server never sends more than three times what it received, over every handshake of lossy,
 * reordering, duplicating and attacked runs, with and without Retry; a flood of spoofed
 * INITIALs leaves the server's state bounded, and none at all with Retry on; a connection
 * through a Retry completes, its first call one round trip later than without.
 */
@Timeout(300)
class AddressValidationSimTest {
  private static final List<String> PROFILES = List.of("mobile", "mobile-tail", "harsh-loss",
      "harsh-burst", "harsh-reorder", "harsh-dup", "harsh-corrupt", "harsh-mix");

  private static ConnectionConfig server(RetryPolicy policy) {
    return ConnectionConfig.builder().addressValidation(AddressValidation.defaults()
        .withRetryPolicy(policy)).build();
  }

  private record Run(Simulation sim, Call call) {}

  private static Run run(String profile, long seed, ConnectionConfig serverConfig,
      String adversary) {
    LinkProfile p = SimProfiles.get(profile);
    LinkChannel up = new LinkChannel(new Link(p.clientToServer(), seed * 31 + 1, 0));
    LinkChannel down = new LinkChannel(new Link(p.serverToClient(), seed * 31 + 2, 0));
    Call call = new Call(0, 1024, 1024);
    Simulation sim = new Simulation(seed, up, down, ConnectionConfig.defaults(), serverConfig,
        List.of(call));
    if ("spoofer".equals(adversary)) {
      sim.spoofEvery(5_000_000L, seed ^ 0x5bad);
    } else if ("replayer".equals(adversary)) {
      sim.replayAndReorder(0.10, 0.10, 20_000_000L, 500_000_000L, seed ^ 0x5bad);
    }
    sim.runUntil(sim::allCallsDone, SimRun.CALL_LIMIT_NS);
    sim.runUntil(() -> false, sim.nowNs() + 2_000_000_000L); // and the tail: probes, closes
    return new Run(sim, call);
  }

  @Test
  void beforeValidationTheServerNeverSendsMoreThanThreeTimesWhatItReceived() {
    int runs = 0;
    for (RetryPolicy policy : new RetryPolicy[] {RetryPolicy.NEVER, RetryPolicy.ALWAYS}) {
      for (String profile : PROFILES) {
        for (String adversary : new String[] {null, "spoofer", "replayer"}) {
          for (long seed = 1; seed <= 4; seed++) {
            Run r = run(profile, seed, server(policy), adversary);
            runs++;
            assertThat(r.sim.amplificationViolations).as("%s %s %s seed %d: %s", policy, profile,
                adversary, seed, r.sim.amplificationViolation).isZero();
            assertThat(r.sim.allCallsDone()).as("%s %s %s seed %d: %s", policy, profile,
                adversary, seed, r.sim.fatal()).isTrue();
            if (policy == RetryPolicy.ALWAYS) {
              assertThat(r.sim.server().retried()).isTrue();
            }
          }
        }
      }
    }
    assertThat(runs).isEqualTo(2 * PROFILES.size() * 3 * 4);
  }

  @Test
  void aConnectionThroughARetryCompletesAndItsFirstCallTakesOneMoreRoundTrip() {
    LinkProfile p = SimProfiles.get("mobile");
    long rtt = p.rttNs();
    int clean = 0;
    long costSum = 0;
    long withSum = 0;
    long withoutSum = 0;
    for (long seed = 1; seed <= 30; seed++) {
      Run retried = run("mobile", seed, server(RetryPolicy.ALWAYS), null);
      Run direct = run("mobile", seed, server(RetryPolicy.NEVER), null);
      assertThat(retried.sim.allCallsDone()).as("seed %d", seed).isTrue();
      // The first INITIAL and its copy (docs/protocol.md §4.1) each draw a Retry (stateless);
      // the client takes the first.
      assertThat(retried.sim.demux.retriesSent()).isBetween(1L, 2L);
      assertThat(retried.sim.client().stats().retriesAccepted).isEqualTo(1);
      long withRetry = retried.call.doneNs() - retried.call.startNs;
      long without = direct.call.doneNs() - direct.call.startNs;
      if (retried.sim.client().stats().packetsLost + direct.sim.client().stats().packetsLost
          + retried.sim.server().stats().packetsLost + direct.sim.server().stats().packetsLost
          > 0 || retried.sim.client().stats().ptoCount + direct.sim.client().stats().ptoCount
          > 0) {
        continue; // a loss costs a repair; the comparison is of clean runs
      }
      clean++;
      // Handshake: the Retry's round trip, then the handshake's; then the call's. Each one-way
      // trip adds up to 50 ms of jitter on this link, and the serialisation of its datagrams.
      assertThat(retried.call.openedNs()).as("seed %d: handshake", seed)
          .isBetween(rtt + rtt / 2, 2 * rtt + rtt / 2);
      assertThat(withRetry).as("seed %d: first call", seed)
          .isBetween(3 * rtt - rtt / 4, 3 * rtt + 3 * rtt / 4);
      assertThat(withRetry - without).as("seed %d: the Retry's cost", seed)
          .isBetween(rtt / 2, rtt + rtt / 2);
      costSum += withRetry - without;
      withSum += withRetry;
      withoutSum += without;
    }
    assertThat(clean).as("clean runs").isGreaterThanOrEqualTo(10);
    System.out.printf("retry on mobile (RTT %d ms): %d clean runs, first call %.0f ms with a Retry,"
        + " %.0f ms without, mean cost %.0f ms%n", rtt / 1_000_000, clean,
        withSum / 1e6 / clean, withoutSum / 1e6 / clean, costSum / 1e6 / clean);
  }

  /** Valid INITIALs of fresh clients (real ones: anyone can make them), from forged addresses. */
  private static byte[][] spoofedInitials(int n) {
    byte[][] out = new byte[n][];
    ByteBuffer b = ByteBuffer.allocate(2048);
    for (int i = 0; i < n; i++) {
      Connection c = Connection.client(keys(ConnectionConfig.defaults(), true)
          .withDeterministicRandom(new Random(1000 + i)), new ConnectionListener() {});
      b.clear();
      c.pollDatagram(b, 0);
      b.flip();
      out[i] = new byte[b.remaining()];
      b.get(out[i]);
    }
    return out;
  }

  private static final byte[] KEY = new byte[32];

  static {
    new Random(99).nextBytes(KEY);
  }

  private static ConnectionConfig keys(ConnectionConfig c, boolean client) {
    return client ? c.withPinnedServerKeys(new PinnedServerKey(1,
        c.cryptoProvider().x25519().publicKey(KEY)))
        : c.withServerStaticKeys(new ServerStaticKey(1, KEY));
  }

  private record Flood(ServerDemux demux, int maxConnections, long repliedBytes,
      long receivedBytes, long largestRatioPermille) {}

  /**
   * {@code initials.length} spoofed INITIALs, one every 100 µs of virtual time, each from a new
   * forged address that never answers; the server's timers run between them.
   */
  private static Flood flood(AddressValidation validation, byte[][] initials) {
    ServerDemux demux = new ServerDemux(keys(ConnectionConfig.builder()
        .addressValidation(validation).build(), false).withDeterministicRandom(new Random(5)),
        c -> new ConnectionListener() {}, 100_000);
    ByteBuffer reply = ByteBuffer.allocate(2048);
    ByteBuffer out = ByteBuffer.allocate(2048);
    long now = 0;
    int most = 0;
    long replied = 0;
    long received = 0;
    long worst = 0;
    for (int i = 0; i < initials.length; i++) {
      now += 100_000L;
      reply.clear();
      received += initials[i].length;
      demux.onDatagram(ByteBuffer.wrap(initials[i].clone()), now, 1L << 50 | i, reply);
      replied += reply.position();
      worst = Math.max(worst, 1000L * reply.position() / initials[i].length);
      for (Connection c : demux.connections()) {
        if (c.nextTimeoutNs() <= now) {
          c.onTimeout(now);
        }
        out.clear();
        while (c.pollDatagram(out, now) > 0) {
          replied += out.position();
          out.clear();
        }
      }
      demux.reapClosed();
      most = Math.max(most, demux.connections().size());
    }
    return new Flood(demux, most, replied, received, worst);
  }

  @Test
  void aFloodOfSpoofedInitialsLeavesNoServerStateWithRetryOn() {
    byte[][] initials = spoofedInitials(2_000);
    Flood f = flood(AddressValidation.defaults().withRetryPolicy(RetryPolicy.ALWAYS), initials);
    assertThat(f.maxConnections).as("connections ever held").isZero();
    assertThat(f.demux.retriesSent()).isEqualTo(initials.length);
    assertThat(f.demux.handshakesInProgressNow()).isZero();
    assertThat(f.largestRatioPermille).as("each Retry against its INITIAL, per mille")
        .isLessThan(200);
  }

  @Test
  void aFloodOfSpoofedInitialsLeavesBoundedServerStateWithRetryUnderLoad() {
    byte[][] initials = spoofedInitials(2_000);
    Flood f = flood(AddressValidation.defaults().withRetryAboveHandshakes(50)
        .withMaxHandshakes(200), initials);
    assertThat(f.maxConnections).as("connections ever held").isEqualTo(50);
    assertThat(f.demux.retriesSent()).isEqualTo(initials.length - 50);
    assertThat(f.repliedBytes).as("never more than 3x what the forged addresses sent")
        .isLessThanOrEqualTo(3 * f.receivedBytes);
  }

  @Test
  void aFloodBeyondTheHandshakeBoundIsRefusedAndStateStaysAtTheBound() {
    byte[][] initials = spoofedInitials(2_000);
    Flood f = flood(AddressValidation.defaults().withRetryPolicy(RetryPolicy.NEVER)
        .withMaxHandshakes(100), initials);
    assertThat(f.maxConnections).as("connections ever held").isEqualTo(100);
    assertThat(f.demux.handshakesRefused()).isEqualTo(initials.length - 100);
    assertThat(f.largestRatioPermille).as("each answer against its INITIAL, per mille")
        .isLessThan(3000);
    assertThat(f.repliedBytes).isLessThanOrEqualTo(3 * f.receivedBytes);
  }
}
