package dev.tern.transport.udp.path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class IdlePolicyTest {
  private static final long S = 1_000_000_000L;
  private static final long PTO = 300_000_000L;
  private static final long MS = 1_000_000L;

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
  void aPingThatDrawsNothingWithinTheKeepAliveTimeoutEndsTheConnection() {
    IdlePolicy p = new IdlePolicy(10 * S, 5 * S, 60 * S, 0);
    p.setOpenStreams(1);
    assertThat(p.onTimeout(10 * S, PTO)).isEqualTo(IdlePolicy.Action.SEND_PING);
    p.onKeepAlivePingSent(10 * S, PTO);
    p.onAckElicitingSent(10 * S);
    // The keep-alive timeout comes long before the idle timeout (70 s).
    assertThat(p.nextTimeoutNs(PTO)).isEqualTo(15 * S);
    assertThat(p.onTimeout(15 * S - 1, PTO)).isEqualTo(IdlePolicy.Action.NONE);
    assertThat(p.onTimeout(15 * S, PTO)).isEqualTo(IdlePolicy.Action.KEEP_ALIVE_TIMEOUT);
  }

  @Test
  void anyPacketAnswersThePing() {
    IdlePolicy p = new IdlePolicy(10 * S, 5 * S, 60 * S, 0);
    p.setOpenStreams(1);
    assertThat(p.onTimeout(10 * S, PTO)).isEqualTo(IdlePolicy.Action.SEND_PING);
    p.onKeepAlivePingSent(10 * S, PTO);
    p.onAckElicitingSent(10 * S);
    p.onPacketReceived(14 * S);
    assertThat(p.onTimeout(15 * S, PTO)).isEqualTo(IdlePolicy.Action.NONE);
    // The next PING is one interval after the answer, with a deadline of its own.
    assertThat(p.nextTimeoutNs(PTO)).isEqualTo(24 * S);
    assertThat(p.onTimeout(24 * S, PTO)).isEqualTo(IdlePolicy.Action.SEND_PING);
    p.onKeepAlivePingSent(24 * S, PTO);
    assertThat(p.nextTimeoutNs(PTO)).isEqualTo(29 * S);
  }

  @Test
  void theKeepAliveTimeoutIsAtLeastOneProbeTimeout() {
    IdlePolicy p = new IdlePolicy(10 * S, 1_000_000L, 60 * S, 0);
    p.setOpenStreams(1);
    assertThat(p.onTimeout(10 * S, PTO)).isEqualTo(IdlePolicy.Action.SEND_PING);
    p.onKeepAlivePingSent(10 * S, PTO);
    // A 1 ms timeout on a path whose acknowledgements take up to a 300 ms PTO.
    assertThat(p.nextTimeoutNs(PTO)).isEqualTo(10 * S + PTO);
    assertThat(p.onTimeout(10 * S + PTO - 1, PTO)).isEqualTo(IdlePolicy.Action.NONE);
    assertThat(p.onTimeout(10 * S + PTO, PTO)).isEqualTo(IdlePolicy.Action.KEEP_ALIVE_TIMEOUT);
  }

  @Test
  void withoutAKeepAliveTimeoutTheIdleTimeoutDecides() {
    IdlePolicy p = new IdlePolicy(10 * S, 0, 30 * S, 0);
    p.setOpenStreams(1);
    assertThat(p.onTimeout(10 * S, PTO)).isEqualTo(IdlePolicy.Action.SEND_PING);
    p.onKeepAlivePingSent(10 * S, PTO);
    p.onAckElicitingSent(10 * S);
    assertThat(p.onTimeout(20 * S, PTO)).isEqualTo(IdlePolicy.Action.SEND_PING);
    p.onKeepAlivePingSent(20 * S, PTO);
    assertThat(p.onTimeout(40 * S, PTO)).isEqualTo(IdlePolicy.Action.CLOSE);
  }

  @Test
  void withKeepAliveOffAnOpenStreamDoesNotDeferTheIdleTimeout() {
    IdlePolicy p = new IdlePolicy(0, 5 * S, 20 * S, 0);
    p.setOpenStreams(3);
    p.setKeepConnected(true);
    assertThat(p.nextTimeoutNs(PTO)).isEqualTo(20 * S);
    assertThat(p.onTimeout(19 * S, PTO)).isEqualTo(IdlePolicy.Action.NONE);
    assertThat(p.onTimeout(20 * S, PTO)).isEqualTo(IdlePolicy.Action.CLOSE);
  }

  @Test
  void rejectsNegativeSettings() {
    assertThatThrownBy(() -> new IdlePolicy(1, -7, 30 * S, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-7");
    assertThatThrownBy(() -> new IdlePolicy(-1, 30 * S, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
    assertThatThrownBy(() -> new IdlePolicy(1, -5, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-5");
  }

  @Test
  void aWaitingClientPingsAfterAProbeTimeoutOfSilenceBackingOff() {
    long pto = 800 * MS;
    IdlePolicy p = new IdlePolicy(15 * S, 60 * S, 0);
    p.setProbeWhileWaiting(true);
    p.setOpenStreams(1);
    p.onPacketReceived(1 * S);
    assertThat(p.nextTimeoutNs(pto)).isEqualTo(1 * S + pto);
    assertThat(p.onTimeout(1 * S + pto - 1, pto)).isEqualTo(IdlePolicy.Action.NONE);
    assertThat(p.onTimeout(1 * S + pto, pto)).isEqualTo(IdlePolicy.Action.SEND_WAITING_PING);
    // Unanswered: the next after twice the probe timeout, then four times (RFC 9002 §6.2.1).
    long second = 1 * S + pto + 2 * pto;
    assertThat(p.nextTimeoutNs(pto)).isEqualTo(second);
    assertThat(p.onTimeout(second, pto)).isEqualTo(IdlePolicy.Action.SEND_WAITING_PING);
    assertThat(p.nextTimeoutNs(pto)).isEqualTo(second + 4 * pto);
    // Something arrives (the PING's acknowledgement, say): the wait counts from then, still
    // backed off; only a new call starts again from one probe timeout.
    p.onPacketReceived(5 * S);
    assertThat(p.nextTimeoutNs(pto)).isEqualTo(5 * S + 4 * pto);
    p.setOpenStreams(2);
    assertThat(p.nextTimeoutNs(pto)).isEqualTo(5 * S + pto);
    // Once the wait would pass the keep-alive interval it stays at the interval: the waiting
    // PINGs never stop while a call is open, and the keep-alive's own PING, due at the same
    // instant, stands for the waiting one (never two at once).
    IdlePolicy q = new IdlePolicy(15 * S, 60 * S, 0);
    q.setProbeWhileWaiting(true);
    q.setOpenStreams(1);
    q.onPacketReceived(0);
    List<Long> pings = new ArrayList<>();
    long t = 0;
    for (int i = 0; i < 8; i++) {
      t = q.nextTimeoutNs(pto);
      IdlePolicy.Action a = q.onTimeout(t, pto);
      assertThat(a).isIn(IdlePolicy.Action.SEND_WAITING_PING, IdlePolicy.Action.SEND_PING);
      q.onAckElicitingSent(t); // the PING leaves; only its acknowledgement comes back
      q.onPacketReceived(t + 100 * MS, false);
      pings.add(t);
      assertThat(q.nextTimeoutNs(pto)).as("no timer in the past").isGreaterThan(t + 100 * MS);
    }
    // 0.8, 1.6, 3.2, 6.4, 12.8 s after the last receipt (each acknowledgement 0.1 s after its
    // PING); then 15 s after it, one PING where the keep-alive's and the waiting one coincide.
    assertThat(pings).containsExactly(800 * MS, 2_500 * MS, 5_800 * MS, 12_300 * MS,
        25_200 * MS, 40_300 * MS, 55_400 * MS, 70_500 * MS);
  }

  @Test
  void anAckElicitingPacketRestartsTheBackoffAndABareAcknowledgementDoesNot() {
    long pto = 800 * MS;
    IdlePolicy p = new IdlePolicy(15 * S, 60 * S, 0);
    p.setProbeWhileWaiting(true);
    p.setOpenStreams(1);
    p.onPacketReceived(0);
    long t = 0;
    for (int i = 0; i < 6; i++) { // backed off to the interval
      t = p.nextTimeoutNs(pto);
      p.onTimeout(t, pto);
      p.onAckElicitingSent(t);
    }
    // The PING's acknowledgement: the wait counts from it, still backed off.
    p.onPacketReceived(t + S, false);
    assertThat(p.nextTimeoutNs(pto)).isEqualTo(t + S + 15 * S);
    // The server sends again (the call's data, after a NAT rebinding was shown to it, say): a
    // silence after this is probed from one probe timeout again.
    p.onPacketReceived(t + 2 * S, true);
    assertThat(p.nextTimeoutNs(pto)).isEqualTo(t + 2 * S + pto);
    assertThat(p.onTimeout(t + 2 * S + pto, pto)).isEqualTo(IdlePolicy.Action.SEND_WAITING_PING);
    assertThat(p.nextTimeoutNs(pto)).isEqualTo(t + 2 * S + pto + 2 * pto);
  }

  @Test
  void noTimerIsLeftInThePastWhateverArrivesAndLeaves() {
    // Random receipts (ack-eliciting or not), sends, calls opening and closing, and timers run
    // when due: after each timer the next deadline lies ahead, or the connection is over.
    Random random = new Random(7);
    for (int run = 0; run < 200; run++) {
      long pto = (1 + random.nextInt(2000)) * MS;
      IdlePolicy p = new IdlePolicy(15 * S, random.nextBoolean() ? 5 * S : 0, 30 * S, 0);
      p.setProbeWhileWaiting(true);
      p.setKeepConnected(random.nextBoolean());
      long now = 0;
      int streams = 0;
      for (int step = 0; step < 300; step++) {
        long next = p.nextTimeoutNs(pto);
        long event = now + random.nextInt(4_000) * MS;
        if (next <= event) {
          now = Math.max(now, next);
          IdlePolicy.Action a = p.onTimeout(now, pto);
          if (a == IdlePolicy.Action.CLOSE || a == IdlePolicy.Action.KEEP_ALIVE_TIMEOUT) {
            break;
          }
          assertThat(a).as("run %d step %d: a due timer acts", run, step)
              .isNotEqualTo(IdlePolicy.Action.NONE);
          if (a == IdlePolicy.Action.SEND_PING) {
            p.onKeepAlivePingSent(now, pto);
          }
          p.onAckElicitingSent(now);
          assertThat(p.nextTimeoutNs(pto)).as("run %d step %d", run, step).isGreaterThan(now);
          continue;
        }
        now = event;
        switch (random.nextInt(4)) {
          case 0:
            p.onPacketReceived(now, random.nextBoolean());
            break;
          case 1:
            p.onAckElicitingSent(now);
            break;
          default:
            streams = Math.max(0, streams + (random.nextBoolean() ? 1 : -1));
            p.setOpenStreams(streams);
            break;
        }
      }
    }
  }

  @Test
  void noWaitingPingWithoutCallsOnAServerOrWithKeepAliveOff() {
    long pto = 800 * MS;
    IdlePolicy client = new IdlePolicy(15 * S, 60 * S, 0);
    client.setProbeWhileWaiting(true);
    client.onPacketReceived(1 * S);
    assertThat(client.onTimeout(1 * S + 2 * pto, pto)).isEqualTo(IdlePolicy.Action.NONE);
    IdlePolicy server = new IdlePolicy(15 * S, 60 * S, 0);
    server.setOpenStreams(1);
    server.onPacketReceived(1 * S);
    assertThat(server.onTimeout(1 * S + 2 * pto, pto)).isEqualTo(IdlePolicy.Action.NONE);
    IdlePolicy off = new IdlePolicy(0, 60 * S, 0);
    off.setProbeWhileWaiting(true);
    off.setOpenStreams(1);
    off.onPacketReceived(1 * S);
    assertThat(off.onTimeout(1 * S + 2 * pto, pto)).isEqualTo(IdlePolicy.Action.NONE);
  }
}
