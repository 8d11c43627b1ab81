package dev.tern.transport.tcp;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The idle clients of {@link IdleConnectionFloodTest}: sockets that send the HTTP/2 preface and
 * an empty SETTINGS frame, then only read, until the server closes each of them. Runs in the
 * test's JVM or, for a flood larger than one process's descriptors, as a process of its own
 * ({@link #main}), which prints its {@link Result} as one line.
 */
final class IdleFlood {
  private static final byte[] PREFACE_AND_SETTINGS = concat("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
      .getBytes(StandardCharsets.US_ASCII), new byte[] {0, 0, 0, RawHttp2Peer.SETTINGS, 0, 0, 0, 0, 0});
  private static final String RESULT = "IDLEFLOOD";

  private IdleFlood() {}

  /** What the clients saw, added over processes. */
  static final class Result {
    int opened;
    long openMs;
    int refused;
    int admitted;
    int goAway;
    long firstIdleCloseMs = Long.MAX_VALUE;
    long lastIdleCloseMs;
    int open;

    void add(Result r) {
      opened += r.opened;
      openMs = Math.max(openMs, r.openMs);
      refused += r.refused;
      admitted += r.admitted;
      goAway += r.goAway;
      firstIdleCloseMs = Math.min(firstIdleCloseMs, r.firstIdleCloseMs);
      lastIdleCloseMs = Math.max(lastIdleCloseMs, r.lastIdleCloseMs);
      open += r.open;
    }

    String line() {
      return RESULT + " " + opened + " " + openMs + " " + refused + " " + admitted + " " + goAway + " "
          + firstIdleCloseMs + " " + lastIdleCloseMs + " " + open;
    }

    /** The result line in a process's output, or null. */
    static Result parse(String output) {
      for (String line : output.split("\n")) {
        if (line.startsWith(RESULT + " ")) {
          String[] f = line.trim().split(" ");
          Result r = new Result();
          r.opened = Integer.parseInt(f[1]);
          r.openMs = Long.parseLong(f[2]);
          r.refused = Integer.parseInt(f[3]);
          r.admitted = Integer.parseInt(f[4]);
          r.goAway = Integer.parseInt(f[5]);
          r.firstIdleCloseMs = Long.parseLong(f[6]);
          r.lastIdleCloseMs = Long.parseLong(f[7]);
          r.open = Integer.parseInt(f[8]);
          return r;
        }
      }
      return null;
    }
  }

  /** {@code host port connections waitMillis}: runs the flood and prints its result line. */
  public static void main(String[] args) throws Exception {
    InetSocketAddress address = new InetSocketAddress(args[0], Integer.parseInt(args[1]));
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[3]));
    List<Idle> idle = new ArrayList<>();
    try {
      System.out.println(run(address, Integer.parseInt(args[2]), deadline, idle).line());
    } finally {
      for (Idle c : idle) {
        c.socket.close();
      }
    }
  }

  /**
   * Opens {@code connections} idle connections (added to {@code idle}, for the caller to close)
   * and reads until the server has closed them all or {@code deadlineNs} passes.
   */
  static Result run(InetSocketAddress address, int connections, long deadlineNs, List<Idle> idle) throws IOException {
    Result r = new Result();
    try (Selector selector = Selector.open()) {
      long openStartNs = System.nanoTime();
      for (int i = 0; i < connections; i++) {
        SocketChannel s = SocketChannel.open(address);
        s.write(ByteBuffer.wrap(PREFACE_AND_SETTINGS));
        s.configureBlocking(false);
        Idle c = new Idle(s, System.nanoTime());
        s.register(selector, SelectionKey.OP_READ, c);
        idle.add(c);
      }
      r.opened = connections;
      r.openMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - openStartNs);
      ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
      int open = connections;
      while (open > 0 && System.nanoTime() < deadlineNs) {
        selector.select(1000);
        for (SelectionKey key : selector.selectedKeys()) {
          Idle c = (Idle) key.attachment();
          if (c.read(buf)) {
            key.cancel();
            c.socket.close();
            open--;
          }
        }
        selector.selectedKeys().clear();
      }
      r.open = open;
    }
    for (Idle c : idle) {
      if (!c.closed) {
        continue;
      }
      if (c.bytes == 0) {
        r.refused++;
      } else {
        r.admitted++;
        r.goAway += c.goAway ? 1 : 0;
        long ms = TimeUnit.NANOSECONDS.toMillis(c.closedNs - c.openedNs);
        r.firstIdleCloseMs = Math.min(r.firstIdleCloseMs, ms);
        r.lastIdleCloseMs = Math.max(r.lastIdleCloseMs, ms);
      }
    }
    return r;
  }

  /** One idle connection, as its client sees it: bytes the server sent, GOAWAY, when it closed. */
  static final class Idle {
    final SocketChannel socket;
    final long openedNs;
    long bytes;
    boolean goAway;
    boolean closed;
    long closedNs;
    /** Where the next frame header starts, counted in bytes from the server's first byte (RFC 9113 §4.1). */
    private long nextFrameAt;
    private final byte[] header = new byte[9];
    private int headerBytes;

    Idle(SocketChannel socket, long openedNs) {
      this.socket = socket;
      this.openedNs = openedNs;
    }

    /** Reads what arrived; true once the server closed the connection. */
    boolean read(ByteBuffer buf) {
      while (true) {
        buf.clear();
        int n;
        try {
          n = socket.read(buf);
        } catch (IOException e) {
          n = -1; // reset by the server
        }
        if (n < 0) {
          closed = true;
          closedNs = System.nanoTime();
          return true;
        }
        if (n == 0) {
          return false;
        }
        for (int i = 0; i < n; i++, bytes++) {
          if (bytes >= nextFrameAt) {
            header[headerBytes++] = buf.get(i);
            if (headerBytes == 9) {
              int length = ((header[0] & 0xff) << 16) | ((header[1] & 0xff) << 8) | (header[2] & 0xff);
              goAway |= header[3] == RawHttp2Peer.GOAWAY;
              nextFrameAt = bytes + 1 + length;
              headerBytes = 0;
            }
          }
        }
      }
    }
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
