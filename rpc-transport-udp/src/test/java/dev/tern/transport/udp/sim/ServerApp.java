package dev.tern.transport.udp.sim;

import dev.tern.transport.udp.connection.Connection;
import dev.tern.transport.udp.connection.ConnectionListener;
import dev.tern.transport.udp.frame.TransportError;
import dev.tern.transport.udp.stream.Stream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The simulated server application: reads each request (checking every byte), then answers
 * with the number of bytes the request's header asked for.
 */
final class ServerApp implements ConnectionListener {
  private final long seed;
  private final Connection connection;
  private final ByteBuffer scratch = ByteBuffer.allocate(64 * 1024);
  private final List<Exchange> open = new ArrayList<>();
  String fatal;
  /** Requests read in full (each stream's once), and those whose data came in 0-RTT. */
  int requestsCompleted;
  int earlyRequests;

  private static final class Exchange {
    final Stream stream;
    long read;
    long responseBytes = -1;
    long written;
    boolean requestDone;
    boolean finished;

    Exchange(Stream stream) {
      this.stream = stream;
    }
  }

  ServerApp(long seed, Connection connection) {
    this.seed = seed;
    this.connection = connection;
  }

  @Override
  public void onStreamOpened(Stream s) {
    open.add(new Exchange(s));
  }

  @Override
  public void onReadable(Stream s) {
    Exchange x = find(s);
    if (x == null) {
      return;
    }
    int n;
    do {
      scratch.clear();
      n = connection.read(s, scratch);
      for (int i = 0; i < n; i++) {
        long off = x.read + i;
        byte b = scratch.get(i);
        if (off == 0) {
          x.responseBytes = 0;
          if (b != 0) {
            // The request's priority applies to the response too.
            s.setPriority((b & 0xff) - 1, false);
          }
        } else if (off < Call.HEADER_BYTES) {
          x.responseBytes = (x.responseBytes << 8) | (b & 0xff);
        } else if (b != Content.at(seed, s.id(), 0, off)) {
          fatal = "request byte " + off + " of stream " + s.id() + " differs";
          return;
        }
      }
      x.read += n;
    } while (n > 0);
    if (s.receive().isFinished() && !x.requestDone) {
      x.requestDone = true;
      requestsCompleted++;
      if (s.receivedInEarlyData()) {
        earlyRequests++;
      }
    }
    pump();
  }

  private Exchange find(Stream s) {
    for (Exchange x : open) {
      if (x.stream == s) {
        return x;
      }
    }
    return null;
  }

  /** Writes responses as the buffers take them. */
  void pump() {
    for (int k = 0; k < open.size(); k++) {
      Exchange x = open.get(k);
      if (!x.requestDone || x.finished) {
        continue;
      }
      while (x.written < x.responseBytes) {
        int n = (int) Math.min(scratch.capacity(), x.responseBytes - x.written);
        scratch.clear().limit(n);
        Content.fill(scratch, seed, x.stream.id(), 1, x.written);
        int taken = connection.write(x.stream, scratch);
        x.written += taken;
        if (taken < n) {
          break;
        }
      }
      if (x.written == x.responseBytes) {
        connection.finish(x.stream);
        x.finished = true;
      }
    }
    open.removeIf(x -> x.finished);
  }

  @Override
  public void onClosed(Connection c, TransportError error, long code, String reason,
      boolean byPeer) {
    if (error != TransportError.NO_ERROR && !(error == TransportError.APPLICATION_ERROR
        && code == 0)) {
      fatal = "server connection closed " + (byPeer ? "by client" : "locally") + ": " + error
          + " " + reason;
    }
  }
}
