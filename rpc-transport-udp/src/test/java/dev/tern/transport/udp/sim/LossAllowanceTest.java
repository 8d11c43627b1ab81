package dev.tern.transport.udp.sim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The probe-timeout allowance of a run exempt for handshake losses (RFC 9002 §6.2.1, §6.2.2). */
class LossAllowanceTest {
  private static final long MS = 1_000_000L;
  private static final long RTT = 100 * MS;

  @Test
  void noHandshakeLossAllowsNothing() {
    assertThat(LinkChannel.handshakeAllowanceNs(RTT, new long[0], new long[0])).isZero();
  }

  @Test
  void oneLostRoundCostsOneInitialProbeTimeout() {
    // The client's INITIAL and its copy's twin lost together: one round.
    assertThat(LinkChannel.handshakeAllowanceNs(RTT, new long[] {0, 5 * MS}, new long[0]))
        .isEqualTo(LinkChannel.INITIAL_PTO_NS);
  }

  @Test
  void roundsInEitherDirectionDoubleTheWait() {
    // Client INITIAL lost at 0; its probe (999 ms later) arrives but the server's answer is lost;
    // the client's next probe (1998 ms after that) is lost too: three rounds, 1 + 2 + 4 timeouts.
    long[] up = {0, 2_997 * MS};
    long[] down = {1_050 * MS};
    assertThat(LinkChannel.handshakeAllowanceNs(RTT, up, down))
        .isEqualTo(7 * LinkChannel.INITIAL_PTO_NS);
  }

  @Test
  void theBackoffIsCapped() {
    long[] up = new long[40];
    for (int i = 0; i < up.length; i++) {
      up[i] = i * 10 * RTT;
    }
    assertThat(LinkChannel.handshakeAllowanceNs(RTT, up, new long[0]))
        .isEqualTo(((1L << LinkChannel.MAX_BACKOFFS) - 1) * LinkChannel.INITIAL_PTO_NS);
  }
}
