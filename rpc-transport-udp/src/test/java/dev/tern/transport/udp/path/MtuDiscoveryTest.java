package dev.tern.transport.udp.path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class MtuDiscoveryTest {
  private static final long S = 1_000_000_000L;

  /** A path that carries datagrams of up to {@code pathMax} bytes and drops larger ones. */
  private static int probeUntilDone(MtuDiscovery d, int pathMax) {
    long pn = 0;
    int probes = 0;
    int size;
    while ((size = d.probeSize(0)) != 0) {
      d.onProbeSent(pn, 0);
      probes++;
      if (size <= pathMax) {
        d.onPacketAcked(pn, size, 0);
      } else {
        assertThat(d.onPacketLost(pn, size, 0)).isTrue();
      }
      pn++;
    }
    return probes;
  }

  @Test
  void startsAt1350AndReachesTheIpv4EthernetSizeInThreeProbes() {
    MtuDiscovery d = new MtuDiscovery(1472);
    assertThat(d.maxDatagramSize()).isEqualTo(1350);
    assertThat(d.probeSize(0)).isEqualTo(1400);
    assertThat(probeUntilDone(d, 1472)).isEqualTo(3);
    assertThat(d.maxDatagramSize()).isEqualTo(1472);
    assertThat(d.state()).isEqualTo(MtuDiscovery.State.SEARCH_COMPLETE);
    assertThat(d.nextProbeTimeNs()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void settlesOnTheLargestFittingRungAfterThreeLostProbes() {
    MtuDiscovery d = new MtuDiscovery(1472);
    // An IPv6 path over a 1500-byte MTU carries 1452 bytes of UDP payload.
    assertThat(probeUntilDone(d, 1452)).isEqualTo(2 + MtuDiscovery.MAX_PROBES);
    assertThat(d.maxDatagramSize()).isEqualTo(1452);
    // RFC 8899 §5.1.1: the larger size is tried again only after the raise timer.
    assertThat(d.probeSize(S)).isZero();
    assertThat(d.nextProbeTimeNs()).isEqualTo(MtuDiscovery.RAISE_INTERVAL_NS);
    assertThat(d.probeSize(MtuDiscovery.RAISE_INTERVAL_NS)).isEqualTo(1472);
  }

  @Test
  void sendsOneProbeAtATime() {
    MtuDiscovery d = new MtuDiscovery(1472);
    d.onProbeSent(5, 0);
    assertThat(d.probeSize(0)).isZero();
    assertThat(d.onPacketLost(5, 1400, 0)).isTrue();
    assertThat(d.probeSize(0)).isEqualTo(1400);
    assertThat(d.maxDatagramSize()).isEqualTo(1350);
  }

  @Test
  void fallsBackToTheBaseOnABlackHoleThenClimbsAsFarAsThePathAllows() {
    MtuDiscovery d = new MtuDiscovery(1472);
    probeUntilDone(d, 1472);
    // The path changes: now nothing above 1300 bytes gets through.
    long pn = 100;
    assertThat(d.onPacketLost(pn++, 1472, S)).isFalse();
    assertThat(d.onPacketLost(pn++, 1472, S)).isFalse();
    assertThat(d.maxDatagramSize()).isEqualTo(1472);
    d.onPacketLost(pn++, 1472, S);
    assertThat(d.maxDatagramSize()).isEqualTo(MtuDiscovery.BASE_PLPMTU);
    assertThat(d.state()).isEqualTo(MtuDiscovery.State.BASE);
    assertThat(d.blackHolesDetected()).isEqualTo(1);
    assertThat(d.probeSize(S)).isEqualTo(1350);
    probeUntilDone(d, 1300);
    assertThat(d.maxDatagramSize()).isBetween(1200, 1300);
  }

  @Test
  void randomLossOfFullSizePacketsIsNotABlackHole() {
    MtuDiscovery d = new MtuDiscovery(1472);
    probeUntilDone(d, 1472);
    for (long pn = 10; pn < 1000; pn += 10) {
      // A lost packet is found missing because later full-size packets were acknowledged.
      d.onPacketAcked(pn + 3, 1472, S);
      assertThat(d.onPacketLost(pn, 1472, S)).isFalse();
    }
    assertThat(d.maxDatagramSize()).isEqualTo(1472);
    assertThat(d.blackHolesDetected()).isZero();
  }

  @Test
  void neverGoesBelowTheBaseOrAboveTheLocalMaximum() {
    MtuDiscovery small = new MtuDiscovery(1200);
    assertThat(small.maxDatagramSize()).isEqualTo(1200);
    assertThat(small.probeSize(0)).isZero();
    MtuDiscovery jumbo = new MtuDiscovery(8952);
    assertThat(probeUntilDone(jumbo, 9000)).isEqualTo(4);
    assertThat(jumbo.maxDatagramSize()).isEqualTo(8952);
    assertThatThrownBy(() -> new MtuDiscovery(1100)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("1100");
  }
}
