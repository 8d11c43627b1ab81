package dev.tern.transport.quic;

import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.DatagramImpairment;
import dev.tern.rpc.spi.RequestHeaders;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.Status;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * Measures the time from starting a client transport to the end of its first call, with and
 * without 0-RTT, across a link whose client-to-server direction is delayed (so RTT = the delay).
 * Not a test: run with
 * {@code mvn -pl rpc-transport-quic -am -Pquic-setup-latency test-compile -Dlatency.args="50 20"}
 * (delay in ms, connections per mode).
 */
public final class SetupLatency {
  private SetupLatency() {}

  /** Entry point: {@code [delayMillis] [connections]}. */
  public static void main(String[] args) throws Exception {
    long delayMillis = args.length > 0 ? Long.parseLong(args[0]) : 50;
    int n = args.length > 1 ? Integer.parseInt(args[1]) : 20;
    Harness.EchoServer server = new Harness.EchoServer(Harness.serverOptions().with(QuicTransportOptions.IMPAIRMENT,
        DatagramImpairment.of(0, 0, 0, 1).withInboundDelayMillis(delayMillis)));
    try {
      InetSocketAddress address = new InetSocketAddress("127.0.0.1", server.port());
      TransportOptions oneRtt = Harness.clientOptions().with(QuicTransportOptions.EARLY_DATA, false);
      TransportOptions zeroRtt = Harness.clientOptions();
      firstCallMillis(address, zeroRtt); // leaves a session ticket for the 0-RTT runs
      double[] full = new double[n];
      double[] early = new double[n];
      for (int i = 0; i < n; i++) {
        full[i] = firstCallMillis(address, oneRtt);
        early[i] = firstCallMillis(address, zeroRtt);
      }
      System.out.printf("one-way delay %d ms, %d connections each%n", delayMillis, n);
      System.out.printf("1-RTT handshake + call: median %.1f ms, max %.1f ms%n", median(full), max(full));
      System.out.printf("0-RTT resumed call:     median %.1f ms, max %.1f ms%n", median(early), max(early));
    } finally {
      server.transport.shutdownNow(Status.UNAVAILABLE);
      server.terminated.await(10, TimeUnit.SECONDS);
    }
  }

  private static double firstCallMillis(InetSocketAddress address, TransportOptions options) throws Exception {
    Harness.TransportEvents events = new Harness.TransportEvents();
    ClientTransport t = Harness.PROVIDER.newClientTransport(address, "localhost:" + address.getPort(), options);
    long start = System.nanoTime();
    t.start(events);
    Harness.Call call = Harness.call(t, RequestHeaders.builder("bench.Setup/First").earlyDataAllowed(true)
        .idempotent(true).build());
    call.stream.request(1);
    call.stream.writeMessage(Harness.utf8("x"));
    call.stream.halfClose();
    Status status = call.status.get(10, TimeUnit.SECONDS);
    double millis = (System.nanoTime() - start) / 1e6;
    if (!status.isOk()) {
      throw new IllegalStateException("call failed: " + status);
    }
    t.shutdown();
    events.terminated.await(10, TimeUnit.SECONDS);
    return millis;
  }

  private static double median(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    return s[s.length / 2];
  }

  private static double max(double[] v) {
    return Arrays.stream(v).max().orElse(0);
  }
}
