package dev.tern.netlab.emu;

import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.util.Arrays;
import java.util.BitSet;
import java.util.concurrent.Callable;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Small measuring tools to run inside the emulator's namespaces (one process per namespace):
 * a UDP echo server and pinger for delay, a paced UDP sender and sink for rate and loss, and a
 * TCP sender and sink for a kernel-TCP transfer. Servers
 * print {@code READY <port>} once bound; every tool ends with one {@code RESULT key=value ...}
 * line on standard output. Datagrams carry a sequence number (and, for pings, the send time).
 */
@Command(name = "net-probe", mixinStandardHelpOptions = true,
    subcommands = {NetProbe.Echo.class, NetProbe.Ping.class, NetProbe.Blast.class, NetProbe.Sink.class,
        NetProbe.TcpSink.class, NetProbe.TcpSend.class},
    description = "UDP echo/ping/blast/sink and TCP send/sink for measuring an emulated link.")
public final class NetProbe {
  private NetProbe() {}

  /**
   * Runs a tool.
   *
   * @param args {@code echo|ping|blast|sink [options]}; see {@code --help}
   */
  public static void main(String[] args) {
    System.exit(new CommandLine(new NetProbe()).execute(args));
  }

  /** Echoes every datagram back to its sender. */
  @Command(name = "echo", description = "Echo datagrams back; prints READY <port>.")
  static final class Echo implements Callable<Integer> {
    @Option(names = "--port", description = "port to bind (0 = any)")
    int port;

    @Option(names = "--idle-exit-s", description = "exit after this many idle seconds")
    int idleExitS = 60;

    @Override
    public Integer call() throws Exception {
      try (DatagramSocket s = new DatagramSocket(new InetSocketAddress("0.0.0.0", port))) {
        s.setSoTimeout(idleExitS * 1000);
        System.out.println("READY " + s.getLocalPort());
        System.out.flush();
        DatagramPacket p = new DatagramPacket(new byte[65_536], 65_536);
        long echoed = 0;
        while (true) {
          try {
            p.setLength(65_536);
            s.receive(p);
          } catch (SocketTimeoutException idle) {
            break;
          }
          s.send(p);
          echoed++;
        }
        System.out.println("RESULT echoed=" + echoed);
      }
      return 0;
    }
  }

  /** Sends numbered, timestamped datagrams and reports the round-trip times of the answers. */
  @Command(name = "ping", description = "Measure round-trip times against an echo server.")
  static final class Ping implements Callable<Integer> {
    @Option(names = "--target", required = true) String target;
    @Option(names = "--port", required = true) int port;
    @Option(names = "--count") int count = 50;
    @Option(names = "--interval-ms") double intervalMs = 20;
    @Option(names = "--size", description = "UDP payload bytes (>= 16)") int size = 100;
    @Option(names = "--wait-ms", description = "time to wait for answers after the last send") int waitMs = 3000;

    @Override
    public Integer call() throws Exception {
      long[] rttNs = new long[count];
      Arrays.fill(rttNs, -1);
      try (DatagramSocket s = new DatagramSocket()) {
        s.connect(new InetSocketAddress(target, port));
        Thread rx = new Thread(() -> receive(s, rttNs), "ping-rx");
        rx.start();
        byte[] buf = new byte[Math.max(16, size)];
        long t0 = System.nanoTime();
        for (int i = 0; i < count; i++) {
          pace(t0 + Math.round(i * intervalMs * 1e6));
          ByteBuffer.wrap(buf).putLong(i).putLong(System.nanoTime());
          s.send(new DatagramPacket(buf, buf.length));
        }
        s.setSoTimeout(waitMs);
        rx.join(waitMs + 1000L);
      }
      long[] got = Arrays.stream(rttNs).filter(v -> v >= 0).sorted().toArray();
      StringBuilder sb = new StringBuilder("RESULT sent=").append(count).append(" received=").append(got.length);
      if (got.length > 0) {
        sb.append(" min_ms=").append(got[0] / 1e6)
            .append(" p50_ms=").append(got[got.length / 2] / 1e6)
            .append(" mean_ms=").append(Arrays.stream(got).average().orElse(0) / 1e6)
            .append(" max_ms=").append(got[got.length - 1] / 1e6);
      }
      System.out.println(sb);
      return 0;
    }

    private void receive(DatagramSocket s, long[] rttNs) {
      DatagramPacket p = new DatagramPacket(new byte[65_536], 65_536);
      int received = 0;
      try {
        while (received < count) {
          p.setLength(65_536);
          s.receive(p);
          long now = System.nanoTime();
          ByteBuffer b = ByteBuffer.wrap(p.getData(), 0, p.getLength());
          int seq = (int) b.getLong();
          long sent = b.getLong();
          if (seq >= 0 && seq < count && rttNs[seq] < 0) {
            rttNs[seq] = now - sent;
            received++;
          }
        }
      } catch (java.io.IOException done) {
        // timed out waiting for the last answers, or the socket closed
      }
    }
  }

  /** Sends numbered datagrams at a fixed pace. */
  @Command(name = "blast", description = "Send numbered datagrams at a fixed rate.")
  static final class Blast implements Callable<Integer> {
    @Option(names = "--target", required = true) String target;
    @Option(names = "--port", required = true) int port;
    @Option(names = "--count") int count = 1000;
    @Option(names = "--size", description = "UDP payload bytes (>= 8)") int size = 1472;
    @Option(names = "--rate-bps", description = "payload bit rate to pace at") long rateBps = 1_000_000;

    @Override
    public Integer call() throws Exception {
      byte[] buf = new byte[Math.max(8, size)];
      double intervalNs = buf.length * 8e9 / rateBps;
      try (DatagramSocket s = new DatagramSocket()) {
        s.connect(new InetSocketAddress(target, port));
        long t0 = System.nanoTime();
        for (int i = 0; i < count; i++) {
          pace(t0 + Math.round(i * intervalNs));
          ByteBuffer.wrap(buf).putLong(i);
          s.send(new DatagramPacket(buf, buf.length));
        }
      }
      System.out.println("RESULT sent=" + count);
      return 0;
    }
  }

  /** Receives numbered datagrams and reports rate, loss and loss bursts. */
  @Command(name = "sink", description = "Count numbered datagrams; prints READY <port>.")
  static final class Sink implements Callable<Integer> {
    @Option(names = "--port") int port;
    @Option(names = "--count", required = true, description = "datagrams the sender sends") int count;
    @Option(names = "--idle-ms", description = "stop this long after the last datagram") int idleMs = 1500;
    @Option(names = "--start-timeout-ms") int startTimeoutMs = 30_000;

    @Override
    public Integer call() throws Exception {
      BitSet seen = new BitSet(count);
      long received = 0;
      long duplicates = 0;
      long bytes = 0;
      long firstNs = 0;
      long lastNs = 0;
      int lastSize = 0;
      try (DatagramSocket s = new DatagramSocket(new InetSocketAddress("0.0.0.0", port))) {
        s.setReceiveBufferSize(4 << 20);
        s.setSoTimeout(startTimeoutMs);
        System.out.println("READY " + s.getLocalPort());
        System.out.flush();
        DatagramPacket p = new DatagramPacket(new byte[65_536], 65_536);
        while (true) {
          try {
            p.setLength(65_536);
            s.receive(p);
          } catch (SocketTimeoutException idle) {
            break;
          }
          long now = System.nanoTime();
          int seq = (int) ByteBuffer.wrap(p.getData(), 0, p.getLength()).getLong();
          if (received == 0) {
            firstNs = now;
            s.setSoTimeout(idleMs);
          } else {
            bytes += p.getLength(); // bytes after the first arrival, for the rate
          }
          lastNs = now;
          lastSize = p.getLength();
          if (seq >= 0 && seq < count && seen.get(seq)) {
            duplicates++;
          } else if (seq >= 0 && seq < count) {
            seen.set(seq);
          }
          received++;
          if (seq == count - 1 && seen.cardinality() == count) {
            break;
          }
        }
      }
      int distinct = seen.cardinality();
      long bursts = 0;
      for (int i = 0; i < count; ) {
        int gap = seen.nextClearBit(i);
        if (gap >= count) {
          break;
        }
        bursts++;
        int next = seen.nextSetBit(gap);
        if (next < 0 || next >= count) {
          break;
        }
        i = next;
      }
      long lost = count - distinct;
      double spanS = (lastNs - firstNs) / 1e9;
      System.out.println("RESULT received=" + distinct + " duplicates=" + duplicates + " lost=" + lost
          + " bursts=" + bursts + " mean_burst=" + (bursts == 0 ? 0 : (double) lost / bursts)
          + " span_ms=" + spanS * 1e3 + " rate_bps=" + (spanS > 0 ? bytes * 8 / spanS : 0)
          + " last_size=" + lastSize);
      return 0;
    }
  }

  /** Accepts one TCP connection and counts its bytes until the peer closes. */
  @Command(name = "tcp-sink", description = "Receive one TCP connection; prints READY <port>.")
  static final class TcpSink implements Callable<Integer> {
    @Option(names = "--port") int port;
    @Option(names = "--timeout-ms") int timeoutMs = 30_000;

    @Override
    public Integer call() throws Exception {
      try (java.net.ServerSocket ss = new java.net.ServerSocket()) {
        ss.bind(new InetSocketAddress("0.0.0.0", port));
        ss.setSoTimeout(timeoutMs);
        System.out.println("READY " + ss.getLocalPort());
        System.out.flush();
        try (java.net.Socket c = ss.accept()) {
          c.setSoTimeout(timeoutMs);
          long t0 = System.nanoTime();
          long bytes = 0;
          byte[] buf = new byte[65_536];
          int n;
          java.io.InputStream in = c.getInputStream();
          while ((n = in.read(buf)) >= 0) {
            bytes += n;
          }
          double s = (System.nanoTime() - t0) / 1e9;
          System.out.println("RESULT bytes=" + bytes + " seconds=" + s + " rate_bps=" + bytes * 8 / s);
        }
      }
      return 0;
    }
  }

  /** Connects, sends a number of bytes and closes. */
  @Command(name = "tcp-send", description = "Send bytes over one TCP connection.")
  static final class TcpSend implements Callable<Integer> {
    @Option(names = "--target", required = true) String target;
    @Option(names = "--port", required = true) int port;
    @Option(names = "--bytes") long bytes = 1 << 20;

    @Override
    public Integer call() throws Exception {
      long t0 = System.nanoTime();
      try (java.net.Socket s = new java.net.Socket()) {
        s.connect(new InetSocketAddress(target, port), 10_000);
        java.io.OutputStream out = s.getOutputStream();
        byte[] buf = new byte[16_384];
        for (long left = bytes; left > 0; left -= buf.length) {
          out.write(buf, 0, (int) Math.min(buf.length, left));
        }
        s.shutdownOutput();
        s.getInputStream().read(); // wait for the peer's close: every byte has arrived
      }
      System.out.println("RESULT sent=" + bytes + " seconds=" + (System.nanoTime() - t0) / 1e9);
      return 0;
    }
  }

  /** Parks until {@code deadlineNs} (sub-millisecond precision). */
  static void pace(long deadlineNs) {
    long wait;
    while ((wait = deadlineNs - System.nanoTime()) > 0) {
      LockSupport.parkNanos(wait);
    }
  }
}
