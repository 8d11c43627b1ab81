package dev.tern.transport.udp.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.netlab.link.Link;
import dev.tern.netlab.link.LinkProfile;
import dev.tern.transport.udp.connection.ConnectionConfig;
import dev.tern.transport.udp.connection.ConnectionState;
import dev.tern.transport.udp.packet.Versions;
import dev.tern.transport.udp.stream.Stream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The radio (docs/mobile.md): over ten minutes of virtual time, a client with no call open sends
 * no datagram at all, and one with a quiet call open sends a PING at its configured keep-alive
 * interval and nothing else. A cellular radio stays in its high-power state for seconds after any
 * packet; a packet nobody asked for costs battery.
 */
class RadioQuietTest {
  private static final long S = 1_000_000_000L;
  private static final long TEN_MINUTES = 600 * S;

  /** The 4G-like link of the mobile profile, its loss and all. */
  private static Simulation simulation(WireLog up, WireLog down, ConnectionConfig client, ConnectionConfig server) {
    return new Simulation(7, up, down, client, server, List.of(new Call(0, 1024, 4096)));
  }

  private static WireLog[] links(String profile) {
    LinkProfile p = SimProfiles.get(profile);
    return new WireLog[] {new WireLog(new LinkChannel(new Link(p.clientToServer(), 1, 0))),
        new WireLog(new LinkChannel(new Link(p.serverToClient(), 2, 0)))};
  }

  /**
   * No call open: nothing is sent either way for ten minutes, with the protocol's 30 s idle
   * timeout (the connection then ends silently, RFC 9000 §10.1) and without any idle timeout (the
   * connection stays, silent).
   */
  @ParameterizedTest
  @ValueSource(longs = {30_000, 0})
  void aClientWithNoCallOpenSendsNothingForTenMinutes(long idleTimeoutMs) {
    WireLog[] wire = links("mobile");
    // Keep-alive at its default (15 s): it runs only while a call is open.
    ConnectionConfig config = ConnectionConfig.builder().versions(Versions.V1).idleTimeoutMs(idleTimeoutMs).build();
    Simulation sim = simulation(wire[0], wire[1], config, config);
    assertThat(sim.runUntil(() -> sim.allCallsDone() && sim.quiescent(), 60 * S))
        .as("the call done and every packet acknowledged").isTrue();
    long quietFrom = sim.nowNs();
    int sentBefore = wire[0].sent.size();
    int receivedBefore = wire[1].sent.size();
    assertThat(sentBefore).as("the client did send during the call").isPositive();

    sim.runUntil(() -> false, quietFrom + TEN_MINUTES);

    assertThat(wire[0].sent.size() - sentBefore).as("datagrams the idle client sent in ten minutes").isZero();
    assertThat(wire[1].sent.size() - receivedBefore).as("datagrams the server sent it").isZero();
    assertThat(sim.client().state()).isEqualTo(idleTimeoutMs == 0 ? ConnectionState.ESTABLISHED
        : ConnectionState.CLOSED);
  }

  /**
   * A quiet call open (a request begun, the server silent) with a keep-alive of 10 s configured:
   * for ten minutes the client sends PINGs and nothing else. First the waiting PINGs, backed off
   * from one probe timeout and doubling up to the interval (IdlePolicy: they show a server the
   * client's address after a NAT rebinding), then one PING per interval, 10 s after the last
   * packet heard (the previous PING's acknowledgement). The connection lives through the ten
   * minutes, though its idle timeout is 30 s.
   */
  @Test
  void aClientWithAQuietCallOpenPingsAtItsKeepAliveInterval() {
    WireLog[] wire = links("lan");
    long intervalNs = 10 * S;
    ConnectionConfig client = ConnectionConfig.builder().versions(Versions.V1).keepAliveMs(10_000).build();
    // The server keeps no time of its own (0: off), so what is measured is the client's.
    ConnectionConfig server = ConnectionConfig.builder().versions(Versions.V1).keepAliveMs(0).build();
    Simulation sim = simulation(wire[0], wire[1], client, server);
    assertThat(sim.runUntil(() -> sim.allCallsDone() && sim.quiescent(), 60 * S)).isTrue();
    // The quiet call: half a request header, so the server waits for the rest, and says nothing.
    Stream quiet = sim.client().openStream();
    assertThat(quiet).isNotNull();
    assertThat(sim.client().write(quiet, ByteBuffer.wrap(new byte[] {0, 0, 0, 0}))).isEqualTo(4);
    int sentBefore = wire[0].sent.size();
    long openedNs = sim.nowNs();

    sim.runUntil(() -> false, openedNs + TEN_MINUTES);

    List<WireLog.Datagram> sent = new ArrayList<>(wire[0].sent.subList(sentBefore, wire[0].sent.size()));
    assertThat(sent).as("the client's datagrams in ten minutes").isNotEmpty();
    assertThat(sent.get(0).streamIds).as("the request's first bytes").isNotEmpty();
    List<Long> pings = new ArrayList<>();
    for (WireLog.Datagram d : sent.subList(1, sent.size())) {
      assertThat(d.ackOnly).as("an ACK-only datagram at %d ms: the server sent nothing to acknowledge",
          d.sentNs / 1_000_000).isFalse();
      assertThat(d.streamIds).as("stream data at %d ms", d.sentNs / 1_000_000).isEmpty();
      pings.add(d.sentNs);
    }
    // The waiting PINGs: gaps that grow to the interval, about log2(interval / probe timeout) of
    // them (a probe timeout of about 1 ms on this link without delay: at most 16).
    int steadyFrom = 1;
    while (steadyFrom < pings.size() && pings.get(steadyFrom) - pings.get(steadyFrom - 1) < intervalNs - S / 100) {
      steadyFrom++;
    }
    assertThat(steadyFrom).as("waiting PINGs before the interval is reached").isBetween(2, 16);
    assertThat(pings.get(steadyFrom - 1) - openedNs).as("when the backoff reached the interval")
        .isLessThan(4 * intervalNs);
    // Then one per interval: the gap is the interval plus the round trip and the server's ACK delay.
    for (int i = steadyFrom; i < pings.size(); i++) {
      assertThat(pings.get(i) - pings.get(i - 1)).as("the gap before the PING at %d ms", pings.get(i) / 1_000_000)
          .isBetween(intervalNs, intervalNs + S / 10);
    }
    long steadyNs = openedNs + TEN_MINUTES - pings.get(steadyFrom - 1);
    assertThat((long) (pings.size() - steadyFrom)).as("PINGs at the interval")
        .isBetween(steadyNs / (intervalNs + S / 10), steadyNs / intervalNs);
    assertThat(sim.client().state()).isEqualTo(ConnectionState.ESTABLISHED);
    assertThat(sim.server().state()).isEqualTo(ConnectionState.ESTABLISHED);
  }
}
