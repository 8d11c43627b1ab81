package dev.tern.transport.udp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.transport.udp.stream.Stream;
import java.lang.management.ManagementFactory;
import dev.tern.transport.udp.packet.Versions;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What one unary call (a 100-byte request, a 100-byte response, each ending its stream half)
 * allocates in steady state, client and server together, datagrams routed to the server through
 * its {@link ServerDemux}: at most 1 KiB. Stream objects and their buffers are reused, so a call
 * costs neither the stream objects nor a buffer per stream half.
 */
@Timeout(120)
class UnaryCallAllocationTest {
  private static final long STEP_NS = 100_000L;
  private static final int MESSAGE_BYTES = 100;
  /** The bound per call, bytes, of the core itself (version 1: a checksum, no cipher). */
  static final long MAX_BYTES_PER_CALL = 1024;

  private final ByteBuffer wire = ByteBuffer.allocate(2048);
  private final ByteBuffer reply = ByteBuffer.allocate(2048);
  private final ByteBuffer message = ByteBuffer.allocate(MESSAGE_BYTES);
  private final ByteBuffer sink = ByteBuffer.allocate(4096);
  private Connection client;
  private Connection server;
  private ServerDemux demux;
  private long now;
  private long callsDone;

  /** The server answers each request, once read to its end, with a response of the same size. */
  private final class Responder implements ConnectionListener {
    @Override
    public void onReadable(Stream s) {
      drain(server, s);
      if (s.receive().isFinished() && s.send().writableBytes() > 0) {
        server.write(s, message.clear());
        server.finish(s);
      }
    }
  }

  /** The client counts a call done when its response is read to its end. */
  private final class Caller implements ConnectionListener {
    @Override
    public void onReadable(Stream s) {
      drain(client, s);
      if (s.receive().isFinished()) {
        callsDone++;
      }
    }
  }

  private void drain(Connection c, Stream s) {
    int n;
    do {
      n = c.read(s, sink.clear());
    } while (n > 0);
  }

  private void setUp(int version) {
    ConnectionConfig config = ConnectionConfig.builder().versions(version).build();
    client = Connection.client(Forge.seeded(config, 1), new Caller());
    demux = new ServerDemux(Forge.seeded(config, 2), c -> new Responder(), 1);
    wire.clear();
    client.pollDatagram(wire, now);
    wire.flip();
    server = demux.onDatagram(wire, now, 0, reply.clear());
    for (int i = 0; i < 100 && client.state() != ConnectionState.ESTABLISHED; i++) {
      exchange();
    }
    assertThat(client.state()).isEqualTo(ConnectionState.ESTABLISHED);
  }

  /** Moves every datagram each way (instant delivery), then advances time one step. */
  private void exchange() {
    boolean any = true;
    while (any) {
      any = false;
      wire.clear();
      if (client.pollDatagram(wire, now) > 0) {
        wire.flip();
        // Checked without AssertJ inside the measured loop: its assertion objects allocate.
        if (demux.onDatagram(wire, now, 0, reply.clear()) != server) {
          throw new AssertionError("a datagram did not reach the server connection");
        }
        any = true;
      }
      wire.clear();
      if (server.pollDatagram(wire, now) > 0) {
        wire.flip();
        client.onDatagram(wire, now, 0);
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

  /** Runs {@code calls} unary calls one after the other; each ends when both sides dropped it. */
  private void run(int calls) {
    for (int i = 0; i < calls; i++) {
      long done = callsDone;
      Stream s = client.openStream();
      if (s == null) {
        throw new AssertionError("no stream after " + i + " calls");
      }
      client.write(s, message.clear());
      client.finish(s);
      for (int k = 0; k < 1000 && (callsDone == done || client.streamCount() > 0
          || server.streamCount() > 0); k++) {
        exchange();
      }
      if (callsDone != done + 1 || client.streamCount() != 0 || server.streamCount() != 0) {
        throw new AssertionError("call " + i + " did not complete and close: calls "
            + callsDone + ", streams " + client.streamCount() + "/" + server.streamCount());
      }
    }
  }

  @Test
  void aUnaryCallAllocatesAtMostOneKibibyteInSteadyState() {
    assertThat(bytesPerCall(Versions.V1)).isLessThanOrEqualTo(MAX_BYTES_PER_CALL);
  }

  /**
   * With encryption, the AEAD's allocation comes on top (docs/udp-crypto.md §8): a unary call
   * here takes a few packets each way, each sealed once and opened once.
   */
  @Test
  void withEncryptionACallAddsOnlyTheAeadsAllocationPerPacket() {
    long perCall = bytesPerCall(Versions.V2);
    long packetsPerCall = (client.stats().packetsSent + server.stats().packetsSent) / 7_000;
    assertThat(packetsPerCall).isPositive();
    assertThat(perCall).isLessThanOrEqualTo(MAX_BYTES_PER_CALL
        + (packetsPerCall + 1) * SteadyStateAllocationTest.MAX_AEAD_BYTES_PER_PACKET);
  }

  private long bytesPerCall(int version) {
    setUp(version);
    run(5_000); // warm-up: pools, rings and tables reach their size; the JIT compiles
    com.sun.management.ThreadMXBean mx =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long tid = Thread.currentThread().getId();
    int calls = 2_000;
    long before = mx.getThreadAllocatedBytes(tid);
    run(calls);
    long perCall = (mx.getThreadAllocatedBytes(tid) - before) / calls;
    System.out.printf("unary call, version 0x%08x: %d bytes allocated per call%n", version,
        perCall);
    return perCall;
  }

  @Test
  void aReusedStreamStartsAsANewOne() {
    setUp(Versions.V2);
    Stream first = client.openStream();
    int fullBuffer = first.send().writableBytes();
    first.setPriority(0, true);
    client.write(first, message.clear());
    client.finish(first);
    for (int k = 0; k < 1000 && client.streamCount() > 0; k++) {
      exchange();
    }
    assertThat(callsDone).isEqualTo(1);
    assertThat(client.streamCount()).isZero();
    Stream second = client.openStream();
    assertThat(second).isSameAs(first); // reused from the pool
    assertThat(second.id()).isEqualTo(4);
    assertThat(client.stream(0)).isNull();
    assertThat(client.stream(4)).isSameAs(second);
    assertThat(second.urgency()).isEqualTo(3);
    assertThat(second.incremental()).isFalse();
    assertThat(second.send().writableBytes()).isEqualTo(fullBuffer);
    assertThat(second.receive().readableBytes()).isZero();
    assertThat(second.receive().isFinished()).isFalse();
    assertThat(second.isTerminal()).isFalse();
    // It carries a call like a new one.
    client.write(second, message.clear());
    client.finish(second);
    for (int k = 0; k < 1000 && client.streamCount() > 0; k++) {
      exchange();
    }
    assertThat(callsDone).isEqualTo(2);
    assertThat(server.streamCount()).isZero();
  }
}
