package dev.tern.transport.udp.nio;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.metrics.TernMetrics;
import dev.tern.rpc.metrics.TransportMetrics;
import dev.tern.transport.udp.connection.Connection;
import dev.tern.transport.udp.connection.ConnectionConfig;
import dev.tern.transport.udp.connection.ConnectionListener;
import dev.tern.transport.udp.crypto.CryptoProvider;
import dev.tern.transport.udp.handshake.PinnedServerKey;
import dev.tern.transport.udp.handshake.ServerStaticKey;
import dev.tern.transport.udp.packet.Versions;
import dev.tern.transport.udp.stream.Stream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The server endpoint's loop allocates (next to) nothing per datagram in steady state: during a
 * bulk upload over loopback, after a warm-up, the bytes its thread allocates divided by the
 * datagrams it received stay small (what remains is per wake-up, not per datagram: the
 * selector's selected-key set and the JDK's own bookkeeping). Both endpoints count into real
 * metrics ({@link TransportMetrics}), so the reporting of bytes and losses is measured too.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DriverAllocationTest {
  private static final long WARM_UP = 32L << 20;
  /** Measured windows after the warm-up; the least is kept (the JIT may still be compiling). */
  private static final int WINDOWS = 4;
  private static final long WINDOW = 8L << 20;
  private static final long UPLOAD = WARM_UP + WINDOWS * WINDOW;

  /**
   * Reads and discards, noting the loop thread's allocation counter and the packets received at
   * the warm-up's end and every {@link #WINDOW} bytes after it; keeps the window that allocated
   * least per packet.
   */
  private static final class Sink implements ConnectionListener {
    private final Connection connection;
    private final ByteBuffer scratch = ByteBuffer.allocate(64 * 1024);
    long read;
    long nextMark = WARM_UP;
    long packetsAtMark = -1;
    long allocatedAtMark;
    long[] least;
    final CompletableFuture<long[]> done = new CompletableFuture<>();

    Sink(Connection connection) {
      this.connection = connection;
    }

    @Override
    public void onReadable(Stream s) {
      int n;
      do {
        scratch.clear();
        n = connection.read(s, scratch);
        read += Math.max(n, 0);
      } while (n > 0);
      if (read >= nextMark) {
        long allocated = allocated();
        long packets = connection.stats().packetsReceived;
        if (packetsAtMark >= 0) {
          long[] window = {allocated - allocatedAtMark, packets - packetsAtMark};
          if (least == null || window[0] * least[1] < least[0] * window[1]) {
            least = window;
          }
        }
        allocatedAtMark = allocated;
        packetsAtMark = packets;
        nextMark += WINDOW;
      }
      if (s.receive().isFinished() && !done.isDone()) {
        done.complete(least);
      }
    }

    private static long allocated() {
      return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
          .getCurrentThreadAllocatedBytes();
    }
  }

  /** Writes {@link #UPLOAD} bytes on one stream from one reused buffer. */
  private static final class Uploader implements ConnectionListener, Pump {
    private final ByteBuffer chunk = ByteBuffer.allocate(64 * 1024);
    private Connection connection;
    private Stream stream;
    private long written;
    private boolean up;

    @Override
    public void onHandshakeComplete(Connection c) {
      connection = c;
      up = true;
    }

    @Override
    public void onWritable(Stream s) {
      write();
    }

    @Override
    public void pump(long nowNs) {
      if (up && stream == null) {
        stream = connection.openStream();
      }
      write();
    }

    private void write() {
      if (stream == null || written >= UPLOAD) {
        return;
      }
      while (written < UPLOAD) {
        chunk.clear().limit((int) Math.min(chunk.capacity(), UPLOAD - written));
        int n = connection.write(stream, chunk);
        written += n;
        if (n == 0) {
          return;
        }
      }
      connection.finish(stream);
    }
  }

  @Test
  void serverLoopAllocatesAlmostNothingPerDatagram() throws Exception {
    CryptoProvider crypto = ConnectionConfig.defaults().cryptoProvider();
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    // Version 1 (a checksum, no cipher): the core allocates nothing per packet there
    // (SteadyStateAllocationTest), so what is counted is the driver's. The encrypted version
    // adds the JDK AEAD's own allocation, about 1 KiB per packet (docs/udp-crypto.md §8).
    ConnectionConfig serverConfig = ConnectionConfig.builder().versions(Versions.V1)
        .serverStaticKeys(new ServerStaticKey(1, key)).build();
    ConnectionConfig clientConfig = ConnectionConfig.builder().versions(Versions.V1)
        .pinnedServerKeys(new PinnedServerKey(1, crypto.x25519().publicKey(key))).build();
    CompletableFuture<Sink> sink = new CompletableFuture<>();
    TernMetrics metrics = TernMetrics.create();
    TransportMetrics serverEvents = metrics.transport(TernMetrics.Side.SERVER, "allocation", "udp");
    TransportMetrics clientEvents = metrics.transport(TernMetrics.Side.CLIENT, "allocation", "udp");
    UdpServerEndpoint server = UdpServerEndpoint.bind(
        new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), serverConfig, c -> {
          Sink s = new Sink(c);
          sink.complete(s);
          return s;
        }, 4, "test-udp-server", serverEvents);
    Uploader up = new Uploader();
    UdpClientEndpoint client = UdpClientEndpoint.connect(server.localAddress(), clientConfig, up,
        "test-udp-client", clientEvents, e -> e.setPump(up));
    try {
      long[] allocatedAndDatagrams = sink.get(30, TimeUnit.SECONDS).done.get(100,
          TimeUnit.SECONDS);
      long perDatagram = allocatedAndDatagrams[0] / Math.max(1, allocatedAndDatagrams[1]);
      System.out.printf("server loop: %d packets, %d bytes allocated (%d per packet)%n",
          allocatedAndDatagrams[1], allocatedAndDatagrams[0], perDatagram);
      assertThat(allocatedAndDatagrams[1]).as("packets measured").isGreaterThan(3_000);
      assertThat(perDatagram).as("bytes allocated per packet received").isLessThan(64);
      // The counting was on while measured: the whole upload went through it.
      assertThat(serverEvents.bytesReceived()).isGreaterThan(UPLOAD);
      assertThat(clientEvents.bytesSent()).isGreaterThan(UPLOAD);
    } finally {
      client.abort();
      server.abort();
      client.terminated().get(10, TimeUnit.SECONDS);
      server.terminated().get(10, TimeUnit.SECONDS);
    }
  }
}
