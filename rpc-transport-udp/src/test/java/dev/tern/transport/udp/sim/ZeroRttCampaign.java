package dev.tern.transport.udp.sim;

import dev.tern.netlab.link.Link;
import dev.tern.netlab.link.LinkProfile;
import dev.tern.transport.udp.connection.ConnectionConfig;
import dev.tern.transport.udp.connection.SessionTicket;
import dev.tern.transport.udp.crypto.CryptoProviders;
import dev.tern.transport.udp.handshake.PinnedServerKey;
import dev.tern.transport.udp.handshake.SealedTicketStore;
import dev.tern.transport.udp.handshake.ServerStaticKey;
import dev.tern.transport.udp.handshake.TicketKeys;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Resumption in the simulator (docs/protocol.md §9.10, docs/udp-simulator.md "0-RTT"): each run
 * makes a first connection with one call, waits for its ticket, then resumes with a second
 * connection whose call goes in 0-RTT, against the same server instance (even seeds) or a second
 * instance (odd seeds) with its own {@link SealedTicketStore} under the same ticket keys (derived
 * from the shared server key, as a udp server's default store is) and its own strike register.
 * Both connections run over fresh links of the profile, seeded from the run's seed; the tickets'
 * wall clock is the simulated time, continued across the two connections with a gap between
 * them. A run passes if both calls complete with every byte checked, each request is read once,
 * and the resumed connection's server accepted its early data.
 */
public final class ZeroRttCampaign {
  /** Request and response size of each call, bytes (the request fits one 0-RTT packet). */
  static final int CALL_BYTES = 512;
  /** The ticket store's age window, ms (RFC 8446 §8.3). */
  static final long WINDOW_MS = 10_000;
  /** The ticket lifetime, ms. */
  static final long LIFETIME_MS = 3_600_000;

  private ZeroRttCampaign() {}

  /** The simulated wall clock of a run: an offset plus the current simulation's time. */
  static final class Clock {
    long offsetMs;
    Simulation sim;

    long ms() {
      return offsetMs + (sim == null ? 0 : sim.nowNs() / 1_000_000L);
    }
  }

  /** One run's outcome. */
  record Result(long seed, boolean secondInstance, boolean ticket, boolean accepted,
      boolean callsDone, int requestsRead, int earlyRequests, long resumedCallNs,
      long resumedOpenedNs, String fatal, boolean lossFree) {
    boolean passed() {
      // A request whose 0-RTT packets were all lost arrives in 1-RTT: accepted all the same.
      return ticket && accepted && callsDone && requestsRead == 1 && fatal == null;
    }
  }

  /** A sealed ticket store on the run's clock, its nonces drawn from {@code nonceSeed}. */
  private static SealedTicketStore ticketStore(TicketKeys keys, Clock clock, long nonceSeed) {
    SecureRandom nonces;
    try {
      nonces = SecureRandom.getInstance("SHA1PRNG");
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    nonces.setSeed(nonceSeed); // seeded before first use: the same nonces on every run
    return SealedTicketStore.builder(CryptoProviders.auto(), keys).clock(clock::ms)
        .lifetimeMillis(LIFETIME_MS).freshnessWindowMillis(WINDOW_MS).random(nonces).build();
  }

  /** Runs one seed on {@code profile}. */
  static Result run(LinkProfile profile, long seed) {
    boolean second = (seed & 1) == 1;
    byte[] key = new byte[32];
    new Random(seed ^ 0x0a71_7e57L).nextBytes(key);
    PinnedServerKey pin = new PinnedServerKey(1,
        CryptoProviders.auto().x25519().publicKey(key));
    Clock clock = new Clock();
    // The server's own ticket store, as a udp server has by default: tickets sealed under keys
    // derived from its static key. A second instance holding the same static key derives the
    // same ticket keys and opens the tickets, with its own record of used ones.
    TicketKeys ticketKeys = TicketKeys.derive(CryptoProviders.auto(),
        List.of(new ServerStaticKey(1, key)));
    SealedTicketStore store = ticketStore(ticketKeys, clock, seed * 7 + 3);
    ConnectionConfig client = ConnectionConfig.builder().wallClock(clock::ms).build()
        .withPinnedServerKeys(pin);
    ConnectionConfig server = ConnectionConfig.builder().wallClock(clock::ms).ticketStore(store)
        .build().withServerStaticKeys(new ServerStaticKey(1, key));

    // The first connection: one call, and the ticket.
    Call first = new Call(0, CALL_BYTES, CALL_BYTES);
    LinkChannel[] la = links(profile, seed, 0);
    Simulation a = new Simulation(seed * 2, la[0], la[1], client, server, List.of(first));
    clock.sim = a;
    a.runUntil(() -> a.allCallsDone() && a.clientApp.ticket != null, SimRun.CALL_LIMIT_NS);
    SessionTicket ticket = a.clientApp.ticket;
    if (ticket == null || !a.allCallsDone()) {
      return new Result(seed, second, ticket != null, false, a.allCallsDone(), 0, 0, -1, -1,
          a.fatal() != null ? a.fatal() : "no ticket", false);
    }
    // Between the two connections the client is idle for a while (100 ms .. 5 s).
    clock.offsetMs = clock.ms() + 100 + new Random(seed).nextInt(4_900);
    clock.sim = null;
    ConnectionConfig resumedServer = second
        ? ConnectionConfig.builder().wallClock(clock::ms)
            .ticketStore(ticketStore(ticketKeys, clock, seed * 7 + 4))
            .build().withServerStaticKeys(new ServerStaticKey(1, key))
        : server;
    Call call = new Call(0, CALL_BYTES, CALL_BYTES);
    LinkChannel[] l = links(profile, seed, 1);
    Simulation b = new Simulation(seed * 2 + 1, l[0], l[1], client.withResumption(ticket),
        resumedServer, List.of(call));
    clock.sim = b;
    b.runUntil(b::allCallsDone, SimRun.CALL_LIMIT_NS);
    boolean accepted = b.server() != null && b.server().stats().earlyDataAccepted == 1
        && b.client().earlyDataAccepted();
    boolean lossFree = l[0].lostBefore(call.doneNs()) + l[1].lostBefore(call.doneNs()) == 0;
    return new Result(seed, second, true, accepted, b.allCallsDone(),
        b.serverApp == null ? 0 : b.serverApp.requestsCompleted,
        b.serverApp == null ? 0 : b.serverApp.earlyRequests, call.doneNs() - call.startNs,
        call.openedNs(), b.fatal(), lossFree);
  }

  /** The two channels of connection {@code which} (0 first, 1 resumed) of run {@code seed}. */
  static LinkChannel[] links(LinkProfile p, long seed, int which) {
    long s = seed * 131 + which * 17;
    return new LinkChannel[] {new LinkChannel(new Link(p.clientToServer(), s + 1, 0)),
        new LinkChannel(new Link(p.serverToClient(), s + 2, 0))};
  }

  /** A campaign's tally. */
  record Summary(int runs, int accepted, int passed, int earlyRead, List<Result> failures,
      long medianCallNs, long rttNs) {
    double acceptedShare() {
      return runs == 0 ? 0 : (double) accepted / runs;
    }

    @Override
    public String toString() {
      StringBuilder sb = new StringBuilder();
      sb.append(String.format("0-RTT campaign: %d runs, early data accepted in %d (%.1f%%),"
          + " passed %d, request read from 0-RTT in %d; resumed first call median %.1f ms"
          + " (link RTT %.1f ms)%n", runs, accepted, 100.0 * acceptedShare(), passed, earlyRead,
          medianCallNs / 1e6, rttNs / 1e6));
      for (Result r : failures) {
        sb.append(String.format("  FAIL seed %d (%s instance): ticket=%s accepted=%s done=%s"
            + " read=%d early=%d fatal=%s%n", r.seed(), r.secondInstance() ? "second" : "same",
            r.ticket(), r.accepted(), r.callsDone(), r.requestsRead(), r.earlyRequests(),
            r.fatal()));
      }
      return sb.toString();
    }
  }

  /** Runs seeds {@code firstSeed .. firstSeed + runs - 1} on {@code profile}. */
  static Summary campaign(String profile, long firstSeed, int runs) {
    LinkProfile p = SimProfiles.get(profile);
    int accepted = 0;
    int passed = 0;
    int earlyRead = 0;
    List<Result> failures = new ArrayList<>();
    List<Long> times = new ArrayList<>();
    for (long seed = firstSeed; seed < firstSeed + runs; seed++) {
      Result r = run(p, seed);
      accepted += r.accepted() ? 1 : 0;
      earlyRead += r.earlyRequests();
      if (r.passed()) {
        passed++;
        times.add(r.resumedCallNs());
      } else {
        failures.add(r);
      }
    }
    times.sort(null);
    long median = times.isEmpty() ? -1 : times.get(times.size() / 2);
    return new Summary(runs, accepted, passed, earlyRead, failures, median, p.rttNs());
  }
}
