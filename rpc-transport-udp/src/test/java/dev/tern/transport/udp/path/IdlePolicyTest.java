package dev.tern.transport.udp.path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class IdlePolicyTest {
  private static final long S = 1_000_000_000L;
  private static final long PTO = 300_000_000L;

  @Test
  void pingsEveryFifteenSecondsOfQuietWhileStreamsAreOpen() {
    IdlePolicy p = new IdlePolicy(IdlePolicy.DEFAULT_KEEP_ALIVE_NS, IdlePolicy.DEFAULT_IDLE_TIMEOUT_NS, 0);
    p.setOpenStreams(1);
    assertThat(p.nextTimeoutNs(PTO)).isEqualTo(15 * S);
    assertThat(p.onTimeout(14 * S, PTO)).isEqualTo(IdlePolicy.Action.NONE);
    assertThat(p.onTimeout(15 * S, PTO)).isEqualTo(IdlePolicy.Action.SEND_PING);
    p.onAckElicitingSent(15 * S);
    p.onPacketReceived(15 * S + PTO);
    assertThat(p.nextTimeoutNs(PTO)).isEqualTo(30 * S + PTO);
  }

  @Test
  void staysQuietWithoutStreamsUnlessAskedToStayConnected() {
    IdlePolicy p = new IdlePolicy(15 * S, 60 * S, 0);
    assertThat(p.onTimeout(20 * S, PTO)).isEqualTo(IdlePolicy.Action.NONE);
    assertThat(p.nextTimeoutNs(PTO)).isEqualTo(60 * S);
    p.setKeepConnected(true);
    assertThat(p.onTimeout(20 * S, PTO)).isEqualTo(IdlePolicy.Action.SEND_PING);
  }

  @Test
  void closesAfterTheIdleTimeoutWithoutReceiving() {
    IdlePolicy p = new IdlePolicy(15 * S, 60 * S, 0);
    p.setOpenStreams(2);
    // Our own pings do not keep a dead peer alive: only the first send after a receipt restarts
    // the timer (RFC 9000 §10.1), so the connection closes 60 s after the ping at 15 s.
    p.onAckElicitingSent(15 * S);
    p.onAckElicitingSent(30 * S);
    p.onAckElicitingSent(45 * S);
    assertThat(p.onTimeout(74 * S, PTO)).isNotEqualTo(IdlePolicy.Action.CLOSE);
    assertThat(p.onTimeout(75 * S, PTO)).isEqualTo(IdlePolicy.Action.CLOSE);
  }

  @Test
  void theIdleTimeoutIsAtLeastThreeProbeTimeouts() {
    IdlePolicy p = new IdlePolicy(1 * S, 2 * S, 0);
    assertThat(p.effectiveIdleTimeoutNs(5 * S)).isEqualTo(15 * S);
    assertThat(p.onTimeout(10 * S, 5 * S)).isNotEqualTo(IdlePolicy.Action.CLOSE);
  }

  @Test
  void pingsAtHalfAShorterNegotiatedIdleTimeout() {
    IdlePolicy p = new IdlePolicy(15 * S, 60 * S, 0);
    p.setOpenStreams(1);
    p.setIdleTimeoutNs(10 * S);
    assertThat(p.nextTimeoutNs(PTO)).isEqualTo(5 * S);
    assertThat(p.onTimeout(5 * S, PTO)).isEqualTo(IdlePolicy.Action.SEND_PING);
  }

  @Test
  void rejectsNegativeSettings() {
    assertThatThrownBy(() -> new IdlePolicy(-1, 30 * S, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
    assertThatThrownBy(() -> new IdlePolicy(1, -5, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-5");
  }
}
