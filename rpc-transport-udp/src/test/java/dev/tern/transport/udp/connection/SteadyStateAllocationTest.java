package dev.tern.transport.udp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.congestion.CongestionControl;
import dev.tern.transport.udp.packet.Versions;
import dev.tern.transport.udp.stream.Stream;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The steady-state send and ACK paths allocate nothing: after a warm-up, a stream of data flowing
 * client to server (packets built, sent, received, reassembled, read; ACKs built and processed;
 * flow-control credit sent) leaves the thread's allocated-bytes counter where it was. That holds
 * for the core itself, measured on version 1 (a checksum, no cipher); with the encrypted version
 * the only allocation is the crypto provider's inside its AEAD calls (docs/udp-crypto.md §8),
 * bounded here per packet.
 */
@Timeout(120)
class SteadyStateAllocationTest {
  private static final long STEP_NS = 200_000L;

  /** The application side: reads everything it is told about into one reused buffer. */
  private static final class Reader implements ConnectionListener {
    final ByteBuffer sink = ByteBuffer.allocate(64 * 1024);
    Connection connection;
    long read;

    @Override
    public void onReadable(Stream s) {
      int n;
      do {
        sink.clear();
        n = connection.read(s, sink);
        read += n;
      } while (n > 0);
    }
  }

  private final ByteBuffer wire = ByteBuffer.allocate(2048);
  private final ByteBuffer reply = ByteBuffer.allocate(2048);
  private final ByteBuffer payload = ByteBuffer.allocate(4096);
  private Connection client;
  private Connection server;
  private Stream stream;
  private long now;

  /**
   * Bytes the JDK provider allocates to seal one packet and open it again (docs/udp-crypto.md §8:
   * about 2.1 KB with AES-256-GCM), with headroom.
   */
  static final long MAX_AEAD_BYTES_PER_PACKET = 4096;

  private void setUp(CongestionControl cc, int version) {
    ConnectionConfig config = ConnectionConfig.builder().congestionControl(cc).versions(version)
        .build();
    Reader serverReader = new Reader();
    client = Connection.client(Forge.seeded(config, 1), new ConnectionListener() {});
    ServerDemux demux = new ServerDemux(Forge.seeded(config, 2), c -> {
      serverReader.connection = c;
      return serverReader;
    }, 1);
    wire.clear();
    client.pollDatagram(wire, now);
    wire.flip();
    reply.clear();
    server = demux.onDatagram(wire, now, 0, reply);
    for (int i = 0; i < 100 && stream == null; i++) {
      exchange();
      stream = client.openStream();
    }
    assertThat(stream).isNotNull();
  }

  /** Moves every datagram each way (instant delivery), then advances time one step. */
  private void exchange() {
    Forge.exchange(client, server, wire, now);
    now += STEP_NS;
    if (client.nextTimeoutNs() <= now) {
      client.onTimeout(now);
    }
    if (server.nextTimeoutNs() <= now) {
      server.onTimeout(now);
    }
  }

  private void run(int steps) {
    for (int i = 0; i < steps; i++) {
      payload.clear();
      client.write(stream, payload);
      exchange();
    }
  }

  @ParameterizedTest
  @EnumSource(CongestionControl.class)
  void sendAndAckPathsAllocateNothingInSteadyState(CongestionControl cc) {
    assertThat(measure(cc, Versions.V1)[0]).isZero();
  }

  @ParameterizedTest
  @EnumSource(CongestionControl.class)
  void withEncryptionOnlyTheAeadAllocates(CongestionControl cc) {
    long[] allocatedAndPackets = measure(cc, Versions.V2);
    assertThat(allocatedAndPackets[0] / allocatedAndPackets[1])
        .isLessThanOrEqualTo(MAX_AEAD_BYTES_PER_PACKET);
  }

  /**
   * Bytes allocated while more than 20,000 packets flow, after warm-up, and the packets: the
   * least of three such windows. In a JVM that has run other tests first, the JIT may recompile
   * a call site that has met other protection classes and, deoptimising, re-materialise a
   * scalar-replaced object once (about a hundred bytes); an allocation per packet shows in every
   * window, at 20,000 bytes or more.
   */
  private long[] measure(CongestionControl cc, int version) {
    setUp(cc, version);
    run(200_000); // warm-up: windows, rings and buffers reach their size; the JIT compiles
    com.sun.management.ThreadMXBean mx =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long tid = Thread.currentThread().getId();
    long[] least = null;
    for (int window = 0; window < 3; window++) {
      long packetsBefore = client.stats().packetsSent + server.stats().packetsSent;
      long before = mx.getThreadAllocatedBytes(tid);
      run(20_000);
      long allocated = mx.getThreadAllocatedBytes(tid) - before;
      long packets = client.stats().packetsSent + server.stats().packetsSent - packetsBefore;
      System.out.printf("%s, version 0x%08x, window %d: %d packets, %d bytes allocated (%d per"
          + " packet)%n", cc, version, window, packets, allocated, allocated / packets);
      assertThat(packets).isGreaterThan(20_000);
      if (least == null || allocated < least[0]) {
        least = new long[] {allocated, packets};
      }
    }
    return least;
  }
}
