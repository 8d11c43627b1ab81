package dev.tern.transport.quic;

import dev.tern.rpc.spi.DatagramImpairment;
import dev.tern.rpc.spi.TransportOptions;
import java.time.Duration;

/**
 * The conformance suite's SPI-level cases over QUIC while the server's UDP socket drops 5% of the
 * datagrams it sends and receives (so each direction loses 5%), duplicates 1% and reorders 1%, from
 * a fixed seed. (The end-to-end cases build their transports through the public builders, which
 * take no transport options, so they run unimpaired.)
 */
class QuicUnderLossConformanceTest extends QuicConformanceTest {
  static final DatagramImpairment IMPAIRMENT = DatagramImpairment.of(0.05, 0.01, 0.01, 20261129L);

  @Override
  protected TransportOptions serverOptions() {
    return super.serverOptions().with(QuicTransportOptions.IMPAIRMENT, IMPAIRMENT);
  }

  @Override
  protected Duration timeout() {
    // A lost handshake packet waits for quiche's probe timeout, computed from a 333 ms initial RTT
    // (RFC 9002 §6.2.2) and doubling per loss.
    return Duration.ofSeconds(20);
  }
}
