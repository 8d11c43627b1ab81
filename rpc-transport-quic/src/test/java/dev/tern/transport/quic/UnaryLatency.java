package dev.tern.transport.quic;

import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.RequestHeaders;
import io.grpc.Status;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * Sequential unary calls (1 KiB each way) over loopback on one connection, printing the latency
 * percentiles and where each call's time goes (until the response headers, the message, the
 * trailers). Not a test: run with
 * {@code mvn -pl rpc-transport-quic -am -Pquic-unary-latency test-compile -Dunary.args="2000"}.
 */
public final class UnaryLatency {
  private UnaryLatency() {}

  private static volatile long created;
  private static volatile long message;
  private static volatile long halfClose;
  private static volatile long closed;

  /** Entry point: {@code [calls]}. */
  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
    Harness.EchoServer server = new Harness.EchoServer(Harness.serverOptions()) {
      @Override
      public dev.tern.rpc.spi.ServerStreamListener streamCreated(dev.tern.rpc.spi.ServerStream stream, RequestHeaders h) {
        created = System.nanoTime();
        dev.tern.rpc.spi.ServerStreamListener l = super.streamCreated(stream, h);
        return new dev.tern.rpc.spi.ServerStreamListener() {
          @Override public void onMessage(ByteBuffer m) { message = System.nanoTime(); l.onMessage(m); }
          @Override public void onHalfClose() { halfClose = System.nanoTime(); l.onHalfClose(); closed = System.nanoTime(); }
          @Override public void onReady() { l.onReady(); }
          @Override public void onComplete() { l.onComplete(); }
          @Override public void onCancel(Status s) { l.onCancel(s); }
        };
      }
    };
    InetSocketAddress address = new InetSocketAddress("127.0.0.1", server.port());
    Harness.TransportEvents events = new Harness.TransportEvents();
    ClientTransport t = Harness.PROVIDER.newClientTransport(address, "localhost:" + address.getPort(),
        Harness.clientOptions());
    t.start(events);
    events.ready.get(10, TimeUnit.SECONDS);
    byte[] payload = new byte[1024];
    long[] total = new long[n];
    long[] toHeaders = new long[n];
    long[] toCreated = new long[n];
    long[] toMessage = new long[n];
    long[] toHalfClose = new long[n];
    long[] closeToHeaders = new long[n];
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    long cpu0 = 0;
    long wall0 = 0;
    for (int i = 0; i < n; i++) {
      if (i == n / 5) {
        cpu0 = os.getProcessCpuTime();
        wall0 = System.nanoTime();
      }
      long start = System.nanoTime();
      Harness.Call call = Harness.call(t, RequestHeaders.builder("bench.Unary/Echo").build());
      call.stream.request(1);
      call.stream.writeMessage(ByteBuffer.wrap(payload));
      call.stream.flush();
      call.stream.halfClose();
      call.headers.get(10, TimeUnit.SECONDS);
      long gotHeaders = System.nanoTime();
      toHeaders[i] = gotHeaders - start;
      toCreated[i] = created - start;
      toMessage[i] = message - start;
      toHalfClose[i] = halfClose - start;
      closeToHeaders[i] = gotHeaders - closed;
      Status status = call.status.get(10, TimeUnit.SECONDS);
      total[i] = System.nanoTime() - start;
      if (!status.isOk()) {
        throw new IllegalStateException("call failed: " + status);
      }
    }
    int from = n / 5; // the first fifth is warm-up
    System.out.printf("process CPU per call %.1f us, wall per call %.1f us%n",
        (os.getProcessCpuTime() - cpu0) / 1e3 / (n - from), (System.nanoTime() - wall0) / 1e3 / (n - from));
    java.lang.management.ThreadMXBean tm = java.lang.management.ManagementFactory.getThreadMXBean();
    for (long id : tm.getAllThreadIds()) {
      java.lang.management.ThreadInfo ti = tm.getThreadInfo(id);
      long c = tm.getThreadCpuTime(id);
      if (ti != null && c > 100_000_000L) {
        System.out.printf("thread %-40s cpu %8.1f ms%n", ti.getThreadName(), c / 1e6);
      }
    }
    print("to server created", Arrays.copyOfRange(toCreated, from, n));
    print("to server message", Arrays.copyOfRange(toMessage, from, n));
    print("to server halfClose", Arrays.copyOfRange(toHalfClose, from, n));
    print("srv close->headers", Arrays.copyOfRange(closeToHeaders, from, n));
    print("to response headers", Arrays.copyOfRange(toHeaders, from, n));
    print("whole call", Arrays.copyOfRange(total, from, n));
    t.shutdown();
    events.terminated.await(10, TimeUnit.SECONDS);
    server.transport.shutdownNow(Status.UNAVAILABLE);
    server.terminated.await(10, TimeUnit.SECONDS);
  }

  private static void print(String what, long[] v) {
    long[] s = v.clone();
    Arrays.sort(s);
    System.out.printf("%-20s p50 %8.1f us  p90 %8.1f us  p99 %8.1f us  max %8.1f us%n", what,
        s[s.length / 2] / 1e3, s[s.length * 9 / 10] / 1e3, s[s.length * 99 / 100] / 1e3, s[s.length - 1] / 1e3);
  }
}
