package dev.tern.transport.udp.rpc;

import dev.tern.rpc.spi.DatagramImpairment;

/** {@link UdpUnderLossConformanceTest} at 1% loss each way, 1% reordering, 1% duplicates. */
class UdpUnderLightLossConformanceTest extends UdpUnderLossConformanceTest {
  @Override
  protected DatagramImpairment impairment() {
    return DatagramImpairment.of(0.01, 0.01, 0.01, 20261208L);
  }
}
