package dev.tern.transport.udp.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.netlab.link.LinkConfig;
import dev.tern.netlab.link.LinkProfile;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The slow-start floor against figures worked out by hand. */
class SlowStartFloorTest {
  private static final long US = 1_000L;

  private static LinkProfile fastSymmetric() {
    LinkConfig c = LinkConfig.builder().rateBitsPerSecond(1_000_000_000L).delayMs(50).build();
    return new LinkProfile("t", "test", c, c);
  }

  @Test
  void theInitialWindowIsSpreadOverHalfTheHandshakeRoundTrip() {
    // Seven full packets (10,304 bytes) fit the 12,000-byte initial window, so only the pacing
    // of the window can delay them: the seventh leaves 9,000 / 12,000 of half the handshake's
    // round trip after the first. Handshake: two 1,228-byte datagrams, 9.824 us + 50 ms each.
    long handshake = 2 * (50_000 * US + 9_824);
    long seventhLeaves = handshake + 9_000 * (handshake / 2) / 12_000;
    // 1,500 bytes on the wire take 12 us; the 1-byte response's 29 bytes 0.232 us.
    long expected = seventhLeaves + 50_000 * US + 12 * US + 50_000 * US + 232;
    long floor = new SlowStartFloor(fastSymmetric(), 1, 2)
        .of(List.of(new Call(0, 7 * 1472, 1)));
    assertThat(floor).isBetween(expected - 5 * US, expected + 5 * US);
  }

  @Test
  void dataBeyondTheInitialWindowIsNotPaced() {
    // Twenty packets: the first eight (12,000 bytes on the wire) fill the window, one every
    // 6.25 ms (half the round trip over eight); each ACK, one round trip after its packet, grows
    // the window by a packet and frees one, so two packets leave at once per ACK, unpaced. The
    // twelve left go in pairs on the first six ACKs: the last at the sixth, one round trip after
    // the sixth packet (5 x 1,500 / 12,000 of half the round trip after the first).
    long handshake = 2 * (50_000 * US + 9_824);
    long sixthLeaves = handshake + 7_500 * (handshake / 2) / 12_000;
    long roundTrip = 50_000 * US + 12 * US + 50_000 * US;
    long expected = sixthLeaves + roundTrip + 50_000 * US + 12 * US + 50_000 * US;
    long floor = new SlowStartFloor(fastSymmetric(), 1, 2)
        .of(List.of(new Call(0, 20 * 1472, 1)));
    assertThat(floor).isBetween(expected - 100 * US, expected + 100 * US);
  }
}
