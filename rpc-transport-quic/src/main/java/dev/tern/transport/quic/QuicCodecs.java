package dev.tern.transport.quic;

import dev.tern.rpc.spi.TransportOptions;
import io.netty.handler.codec.http3.Http3;
import io.netty.handler.codec.quic.QuicCodecBuilder;
import io.netty.handler.codec.quic.QuicCongestionControlAlgorithm;
import java.util.concurrent.TimeUnit;

/** Applies {@link TransportOptions} and {@link QuicTransportOptions} to a quiche codec builder. */
final class QuicCodecs {
  /** Window of HTTP/3's unidirectional streams (control, QPACK): small, they carry little. */
  private static final long UNI_STREAM_WINDOW = 64 * 1024;

  private QuicCodecs() {}

  /**
   * Configures {@code b} from {@code o}.
   *
   * @throws IllegalArgumentException naming an option whose value quiche cannot take
   */
  static <B extends QuicCodecBuilder<B>> B apply(B b, TransportOptions o) {
    int streamWindow = positive("flowControlWindow", o.get(TransportOptions.FLOW_CONTROL_WINDOW));
    int maxStreams = positive("maxConcurrentStreams", o.get(TransportOptions.MAX_CONCURRENT_STREAMS));
    long maxData = positive("quic.initialMaxData", o.get(QuicTransportOptions.INITIAL_MAX_DATA));
    int udpPayload = o.get(QuicTransportOptions.MAX_UDP_PAYLOAD_SIZE);
    if (udpPayload < 1200 || udpPayload > 65527) {
      // RFC 9000 §14: every QUIC path carries at least 1200-byte UDP payloads.
      throw new IllegalArgumentException("quic.maxUdpPayloadSize must be in 1200..65527, was " + udpPayload);
    }
    long idleMillis = o.get(QuicTransportOptions.MAX_IDLE_TIMEOUT_MILLIS);
    if (idleMillis < 0) {
      throw new IllegalArgumentException("quic.maxIdleTimeoutMillis must be >= 0, was " + idleMillis);
    }
    int initialCwnd = positive("quic.initialCongestionWindowPackets",
        o.get(QuicTransportOptions.INITIAL_CONGESTION_WINDOW_PACKETS));
    return b.congestionControlAlgorithm(algorithm(o.get(QuicTransportOptions.CONGESTION_CONTROL)))
        .initialCongestionWindowPackets(initialCwnd)
        .hystart(o.get(QuicTransportOptions.HYSTART))
        .initialMaxData(Math.max(maxData, streamWindow))
        .initialMaxStreamDataBidirectionalLocal(streamWindow)
        .initialMaxStreamDataBidirectionalRemote(streamWindow)
        // RFC 9114 §6.2: room for the control stream and both QPACK streams, plus grease.
        .initialMaxStreamDataUnidirectional(Math.max(UNI_STREAM_WINDOW, Http3.MIN_INITIAL_MAX_STREAM_DATA_UNIDIRECTIONAL))
        .initialMaxStreamsUnidirectional(Math.max(8, Http3.MIN_INITIAL_MAX_STREAMS_UNIDIRECTIONAL))
        .initialMaxStreamsBidirectional(maxStreams)
        .maxIdleTimeout(idleMillis, TimeUnit.MILLISECONDS)
        .maxSendUdpPayloadSize(udpPayload)
        .maxRecvUdpPayloadSize(Math.max(udpPayload, 1500))
        .discoverPmtu(o.get(QuicTransportOptions.DISCOVER_PMTU))
        .activeMigration(o.get(QuicTransportOptions.ACTIVE_MIGRATION))
        .maxAckDelay(o.get(QuicTransportOptions.MAX_ACK_DELAY_MILLIS), TimeUnit.MILLISECONDS)
        .grease(o.get(QuicTransportOptions.GREASE));
  }

  /**
   * The qlog settings {@link QuicTransportOptions#QLOG_DIR} asks for (its directory created), or
   * null for none. Netty writes one file per connection into a directory that exists.
   *
   * @throws java.io.UncheckedIOException if the directory cannot be created
   */
  static io.netty.handler.codec.quic.QLogConfiguration qlog(TransportOptions o, String description) {
    java.nio.file.Path dir = o.get(QuicTransportOptions.QLOG_DIR);
    if (dir == null) {
      return null;
    }
    try {
      java.nio.file.Files.createDirectories(dir);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("cannot create the qlog directory " + dir, e);
    }
    return new io.netty.handler.codec.quic.QLogConfiguration(dir.toString(), "tern quic", description);
  }

  static QuicCongestionControlAlgorithm algorithm(QuicTransportOptions.CongestionControl cc) {
    switch (cc) {
      case RENO: return QuicCongestionControlAlgorithm.RENO;
      case BBR: return QuicCongestionControlAlgorithm.BBR;
      case CUBIC:
      default: return QuicCongestionControlAlgorithm.CUBIC;
    }
  }

  private static int positive(String name, int v) {
    if (v <= 0) {
      throw new IllegalArgumentException(name + " must be > 0, was " + v);
    }
    return v;
  }

  private static long positive(String name, long v) {
    if (v <= 0) {
      throw new IllegalArgumentException(name + " must be > 0, was " + v);
    }
    return v;
  }
}
