package dev.tern.transport.udp.jmh;

import dev.tern.transport.udp.connection.Connection;
import dev.tern.transport.udp.connection.ConnectionConfig;
import dev.tern.transport.udp.connection.ConnectionListener;
import dev.tern.transport.udp.connection.ConnectionState;
import dev.tern.transport.udp.connection.ServerDemux;
import dev.tern.transport.udp.connection.TestKeys;
import dev.tern.transport.udp.stream.Stream;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The whole per-packet path of two connections, sans-IO: the client packs 1,200 bytes of stream
 * data into a 1-RTT packet, protects and sends it, the server opens it, reassembles and reads the
 * data, and every datagram the step produces each way (ACKs, flow-control credit) is delivered.
 * Version 1 (a checksum) against version 2 (AES-256-GCM or ChaCha20-Poly1305 with header
 * protection), so the difference is what packet protection costs, per operation and, with
 * {@code -prof gc}, in bytes allocated.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PacketPathBenchmark {
  /** The wire version and, for version 2, the AEAD. */
  @Param({"v1-plaintext", "v2-aes256gcm", "v2-chacha20poly1305"})
  public String protection;
  /** The crypto provider of version 2 ({@code bc}: what a default connection uses). */
  @Param({"jdk", "bc"})
  public String provider;

  private static final long STEP_NS = 200_000L;
  private final ByteBuffer wire = ByteBuffer.allocate(2048);
  private final ByteBuffer payload = ByteBuffer.allocate(1200);
  private final ByteBuffer sink = ByteBuffer.allocate(64 * 1024);
  private Connection client;
  private Connection server;
  private Stream stream;
  private long now;

  /** Connects the two ends and opens the stream. */
  @Setup(Level.Trial)
  public void setUp() {
    ConnectionConfig.Builder b = ConnectionConfig.builder()
        .cryptoProvider(dev.tern.transport.udp.crypto.CryptoProviders.byName(provider));
    switch (protection) {
      case "v1-plaintext":
        b.versions(dev.tern.transport.udp.packet.Versions.V1);
        break;
      case "v2-aes256gcm":
        b.handshakeCipher(dev.tern.transport.udp.crypto.AeadAlgorithm.AES_256_GCM);
        break;
      default:
        b.handshakeCipher(dev.tern.transport.udp.crypto.AeadAlgorithm.CHACHA20_POLY1305);
        break;
    }
    ConnectionConfig config = TestKeys.withKeys(b.build());
    client = Connection.client(config.withDeterministicRandom(new Random(1)),
        new ConnectionListener() {});
    ConnectionListener reader = new ConnectionListener() {
      @Override
      public void onReadable(Stream s) {
        while (server.read(s, sink.clear()) > 0) {
          // drained
        }
      }
    };
    ServerDemux demux = new ServerDemux(config.withDeterministicRandom(new Random(2)),
        c -> reader, 1);
    wire.clear();
    client.pollDatagram(wire, now);
    server = demux.onDatagram(wire.flip(), now, 0, ByteBuffer.allocate(2048));
    for (int i = 0; i < 100 && client.state() != ConnectionState.ESTABLISHED; i++) {
      step();
    }
    stream = client.openStream();
  }

  /** One step: up to one packet of data, and what the two ends answer. */
  @Benchmark
  public long packet() {
    client.write(stream, payload.clear());
    step();
    return server.stats().packetsReceived;
  }

  private void step() {
    boolean any = true;
    while (any) {
      any = false;
      wire.clear();
      if (client.pollDatagram(wire, now) > 0) {
        server.onDatagram(wire.flip(), now, 0);
        any = true;
      }
      wire.clear();
      if (server.pollDatagram(wire, now) > 0) {
        client.onDatagram(wire.flip(), now, 0);
        any = true;
      }
    }
    now += STEP_NS;
    if (client.nextTimeoutNs() <= now) {
      client.onTimeout(now);
    }
    if (server.nextTimeoutNs() <= now) {
      server.onTimeout(now);
    }
  }
}
