package dev.tern.transport.udp.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.netlab.link.Link;
import dev.tern.netlab.link.LinkProfile;
import dev.tern.transport.udp.congestion.CongestionControl;
import dev.tern.transport.udp.congestion.Pacer;
import dev.tern.transport.udp.connection.Connection;
import dev.tern.transport.udp.connection.ConnectionConfig;
import dev.tern.transport.udp.packet.Versions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Whole-connection checks on what the server put on the wire, read back from its send log. */
class SendLogTest {
  private static final long MS = 1_000_000L;

  private static final class Run {
    Simulation sim;
    WireLog down;
    List<Call> calls;
  }

  private static Run run(String profileName, CongestionControl cc, List<Call> calls, long seed,
      long untilNs) {
    LinkProfile profile = SimProfiles.get(profileName);
    // WireLog reads frames off the wire: plaintext version 1, whose packets differ only in
    // their protection (docs/protocol.md §9).
    ConnectionConfig config = ConnectionConfig.builder().congestionControl(cc)
        .versions(Versions.V1).build();
    Run r = new Run();
    r.calls = calls;
    LinkChannel up = new LinkChannel(new Link(profile.clientToServer(), seed * 31 + 1, 0));
    r.down = new WireLog(new LinkChannel(new Link(profile.serverToClient(), seed * 31 + 2, 0)));
    r.sim = new Simulation(seed, up, r.down, config, config, calls);
    Simulation sim = r.sim;
    r.down.pacingRate = () -> {
      Connection s = sim.server();
      return s == null ? 0 : s.congestionController().pacingRateBytesPerSecond(s.rtt());
    };
    sim.runUntil(() -> sim.allCallsDone() || sim.fatal() != null || sim.nowNs() >= untilNs,
        untilNs);
    assertThat(sim.fatal()).isNull();
    return r;
  }

  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3})
  void aCancelledStreamSendsNoByteAfterItsReset(long seed) {
    List<Call> calls = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      calls.add(new Call(0, 512, 100 * 1024, 5));
    }
    // Equal urgency, not incremental: the first response goes first, and is mid-way at 1 s.
    Call victim = calls.get(0).cancelAt(1_000 * MS);
    Run r = run("mobile", CongestionControl.BBR, calls, seed, 60_000 * MS);
    assertThat(r.sim.allCallsDone()).isTrue();
    assertThat(victim.cancelled()).isTrue();
    long id = victim.streamId();
    int resetAt = -1;
    boolean sentBefore = false;
    for (int i = 0; i < r.down.sent.size() && resetAt < 0; i++) {
      WireLog.Datagram d = r.down.sent.get(i);
      if (d.resetStreamIds.contains(id)) {
        resetAt = i;
      } else if (d.streamIds.contains(id)) {
        sentBefore = true;
      }
    }
    assertThat(sentBefore).as("the stream had sent data before the cancel").isTrue();
    assertThat(resetAt).as("RESET_STREAM sent for the cancelled stream").isNotNegative();
    boolean othersAfter = false;
    for (int i = resetAt; i < r.down.sent.size(); i++) {
      WireLog.Datagram d = r.down.sent.get(i);
      assertThat(d.streamIds).as("datagram %d at %d ms", i, d.sentNs / MS).doesNotContain(id);
      othersAfter |= !d.streamIds.isEmpty();
    }
    assertThat(othersAfter).as("the other streams went on").isTrue();
  }

  @ParameterizedTest
  @CsvSource({"mobile,NEW_RENO", "mobile,CUBIC", "mobile,BBR", "lossy-fat,NEW_RENO",
      "lossy-fat,CUBIC", "lossy-fat,BBR", "wifi,BBR"})
  void neverSendsMoreDataBackToBackThanThePacerAllows(String profile, CongestionControl cc) {
    List<Call> calls = new ArrayList<>();
    calls.add(new Call(0, 128, 1 << 20));
    Run r = run(profile, cc, calls, 1, 30_000 * MS);
    int dataDatagrams = 0;
    int largest = 1200;
    int i = 0;
    List<WireLog.Datagram> log = r.down.sent;
    while (i < log.size()) {
      int j = i;
      long bytes = 0;
      long rate = 0;
      while (j < log.size() && log.get(j).sentNs == log.get(i).sentNs) {
        WireLog.Datagram d = log.get(j);
        if (!d.ackOnly) {
          bytes += d.bytes;
          dataDatagrams++;
        }
        largest = Math.max(largest, d.bytes);
        rate = Math.max(rate, d.pacingRate);
        j++;
      }
      if (i > 0) {
        rate = Math.max(rate, log.get(i - 1).pacingRate);
      }
      // Two datagrams of the size in use (PMTU discovery raises it to 1472 here) or 1 ms of data.
      long burst = Math.max(2L * largest, Math.min(rate, Pacer.MAX_RATE_BYTES_PER_SECOND) / 1000);
      assertThat(bytes).as("bytes sent at %d ns", log.get(i).sentNs).isLessThanOrEqualTo(burst);
      i = j;
    }
    assertThat(dataDatagrams).isGreaterThan(700);
  }

  @ParameterizedTest
  @ValueSource(strings = {"NEW_RENO", "CUBIC", "BBR"})
  void spreadsTheFirstDataFlightOverHalfTheRoundTrip(CongestionControl cc) {
    List<Call> calls = new ArrayList<>();
    calls.add(new Call(0, 128, 1 << 20));
    Run r = run("lossy-fat", cc, calls, 1, 10_000 * MS);
    List<Long> times = new ArrayList<>();
    for (WireLog.Datagram d : r.down.sent) {
      if (!d.streamIds.isEmpty() && !d.copy && times.size() < 10) { // the copy is not paced
        times.add(d.sentNs);
      }
    }
    long span = times.get(9) - times.get(0);
    // Ten datagrams paced at 2 x IW / RTT: nine intervals between first and last, so the flight
    // occupies span x 10/9 >= RTT/2 (RTT 100 ms, known from the handshake).
    assertThat(span * 10 / 9).isGreaterThanOrEqualTo(50 * MS - MS);
  }
}
