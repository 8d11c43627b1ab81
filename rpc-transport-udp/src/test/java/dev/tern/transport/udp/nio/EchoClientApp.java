package dev.tern.transport.udp.nio;

import dev.tern.transport.udp.connection.Connection;
import dev.tern.transport.udp.connection.ConnectionListener;
import dev.tern.transport.udp.frame.TransportError;
import dev.tern.transport.udp.stream.Stream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A client application for the socket tests: once the handshake is done, opens one stream per
 * exchange, writes its bytes (a pattern per exchange) as the send buffer takes them, ends its
 * half, and checks that the echo comes back byte for byte. Loop thread only, driven by the
 * endpoint's {@link Pump} and the connection's callbacks.
 */
final class EchoClientApp implements ConnectionListener, Pump {
  /** One stream's exchange. */
  static final class Exchange {
    final int index;
    final int bytes;
    long streamId = -1;
    int written;
    int read;
    boolean finished;
    final CompletableFuture<Integer> done = new CompletableFuture<>();

    Exchange(int index, int bytes) {
      this.index = index;
      this.bytes = bytes;
    }
  }

  private Connection connection;
  private final List<Exchange> exchanges = new ArrayList<>();
  private final Map<Long, Exchange> byStream = new HashMap<>();
  private final ByteBuffer scratch = ByteBuffer.allocate(16 * 1024);
  private int started;
  private boolean ready;
  final CompletableFuture<Boolean> handshake = new CompletableFuture<>();
  /** Completes with whether the server closed the connection (true) or we did. */
  final CompletableFuture<Boolean> closed = new CompletableFuture<>();

  /** The byte at {@code offset} of exchange {@code index}. */
  static byte at(int index, long offset) {
    return (byte) (offset * 31 + index * 7 + (offset >>> 9));
  }

  /** Adds exchanges of {@code bytes} each before the endpoint starts. */
  EchoClientApp exchanges(int count, int bytes) {
    for (int i = 0; i < count; i++) {
      exchanges.add(new Exchange(exchanges.size(), bytes));
    }
    return this;
  }

  List<Exchange> all() {
    return exchanges;
  }

  void attach(Connection c) {
    this.connection = c;
  }

  @Override
  public void onHandshakeComplete(Connection c) {
    ready = true;
    handshake.complete(true);
  }

  @Override
  public void pump(long nowNs) {
    if (!ready || connection == null) {
      return;
    }
    while (started < exchanges.size()) {
      Stream s = connection.openStream();
      if (s == null) {
        break; // the server's stream limit: retried on the next turn
      }
      Exchange x = exchanges.get(started++);
      x.streamId = s.id();
      byStream.put(s.id(), x);
    }
    for (int i = 0; i < started; i++) {
      write(exchanges.get(i));
    }
  }

  private void write(Exchange x) {
    if (x.finished) {
      return;
    }
    Stream s = connection.stream(x.streamId);
    if (s == null) {
      return;
    }
    while (x.written < x.bytes) {
      int n = Math.min(scratch.capacity(), x.bytes - x.written);
      scratch.clear().limit(n);
      for (int i = 0; i < n; i++) {
        scratch.put(i, at(x.index, x.written + i));
      }
      int taken = connection.write(s, scratch);
      x.written += taken;
      if (taken < n) {
        return;
      }
    }
    connection.finish(s);
    x.finished = true;
  }

  @Override
  public void onWritable(Stream s) {
    Exchange x = byStream.get(s.id());
    if (x != null) {
      write(x);
    }
  }

  @Override
  public void onReadable(Stream s) {
    Exchange x = byStream.get(s.id());
    if (x == null) {
      return;
    }
    int n;
    do {
      scratch.clear();
      n = connection.read(s, scratch);
      for (int i = 0; i < n; i++) {
        if (scratch.get(i) != at(x.index, x.read + i)) {
          x.done.completeExceptionally(new AssertionError("echo byte " + (x.read + i)
              + " of exchange " + x.index + " differs"));
          return;
        }
      }
      x.read += n;
    } while (n > 0);
    if (s.receive().isFinished()) {
      x.done.complete(x.read);
    }
  }

  @Override
  public void onReset(Stream s, long code) {
    Exchange x = byStream.get(s.id());
    if (x != null) {
      x.done.completeExceptionally(new AssertionError("stream " + s.id() + " reset: " + code));
    }
  }

  @Override
  public void onClosed(Connection c, TransportError error, long code, String reason,
      boolean byPeer) {
    closed.complete(byPeer);
    for (Exchange x : exchanges) {
      x.done.completeExceptionally(new AssertionError("connection closed: " + error + " "
          + reason));
    }
  }
}
