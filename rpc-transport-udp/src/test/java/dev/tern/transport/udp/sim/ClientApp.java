package dev.tern.transport.udp.sim;

import dev.tern.transport.udp.connection.Connection;
import dev.tern.transport.udp.connection.ConnectionListener;
import dev.tern.transport.udp.connection.SessionTicket;
import dev.tern.transport.udp.frame.TransportError;
import dev.tern.transport.udp.stream.Stream;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The simulated client application: starts each {@link Call} at its time, writes the request
 * as the send buffer allows, reads and checks the response byte by byte.
 */
final class ClientApp implements ConnectionListener {
  private final long seed;
  private final List<Call> calls;
  private final Map<Long, Call> byStream = new HashMap<>();
  private final ByteBuffer scratch = ByteBuffer.allocate(64 * 1024);
  private Connection connection;
  private long nowNs;
  private int nextToStart;
  boolean handshakeDone;
  long handshakeDoneNs = -1;
  String fatal;
  /** The last resumption ticket the server issued on this connection, or null. */
  SessionTicket ticket;

  ClientApp(long seed, List<Call> calls) {
    this.seed = seed;
    this.calls = calls;
  }

  void attach(Connection c) {
    this.connection = c;
  }

  void setNow(long nowNs) {
    this.nowNs = nowNs;
  }

  /** Starts due calls and writes what the buffers take. */
  void pump() {
    // A resumed connection opens its calls before the handshake: they go in 0-RTT.
    if ((!handshakeDone && !connection.canSendEarlyData()) || fatal != null) {
      return;
    }
    while (nextToStart < calls.size() && calls.get(nextToStart).startNs <= nowNs) {
      Stream s = connection.openStream();
      if (s == null) {
        break; // the peer's stream limit: retried on the next pump
      }
      Call call = calls.get(nextToStart++);
      call.streamId = s.id();
      call.openedNs = nowNs;
      if (call.urgency >= 0) {
        s.setPriority(call.urgency, false);
      }
      byStream.put(s.id(), call);
    }
    for (int i = 0; i < nextToStart; i++) {
      Call call = calls.get(i);
      if (call.cancelAtNs >= 0 && !call.cancelled && nowNs >= call.cancelAtNs) {
        cancel(call);
      }
      if (!call.finished && !call.cancelled) {
        writeRequest(call);
      }
    }
  }

  private void writeRequest(Call call) {
    Stream s = connection.stream(call.streamId);
    if (s == null) {
      return;
    }
    while (call.written < call.requestBytes) {
      int n = (int) Math.min(scratch.capacity(), call.requestBytes - call.written);
      scratch.clear().limit(n);
      for (int i = 0; i < n; i++) {
        long off = call.written + i;
        scratch.put(i, off < Call.HEADER_BYTES
            ? header(call, (int) off)
            : Content.at(seed, call.streamId, 0, off));
      }
      int taken = connection.write(s, scratch);
      call.written += taken;
      if (taken < n) {
        return;
      }
    }
    connection.finish(s);
    call.finished = true;
  }

  /** When the next call is due to start, {@code Long.MAX_VALUE} if none waits. */
  long nextStartNs() {
    return nextToStart < calls.size() ? calls.get(nextToStart).startNs : Long.MAX_VALUE;
  }

  private void cancel(Call call) {
    Stream s = connection.stream(call.streamId);
    call.cancelled = true;
    if (call.doneNs < 0) {
      call.doneNs = nowNs;
    }
    if (s != null) {
      // RFC 9000 §3.5: abandon our half and ask the peer to stop sending the response.
      connection.stopSending(s, 1);
      connection.resetStream(s, 1);
    }
  }

  private static byte header(Call call, int off) {
    if (off == 0) {
      return (byte) (call.urgency + 1);
    }
    return (byte) ((long) call.responseBytes >>> (8 * (Call.HEADER_BYTES - 1 - off)));
  }

  boolean allDone() {
    for (Call c : calls) {
      if (c.doneNs < 0) {
        return false;
      }
    }
    return true;
  }

  @Override
  public void onTicket(Connection c, SessionTicket t) {
    ticket = t;
  }

  @Override
  public void onHandshakeComplete(Connection c) {
    handshakeDone = true;
    handshakeDoneNs = nowNs;
  }

  @Override
  public void onReadable(Stream s) {
    Call call = byStream.get(s.id());
    if (call == null) {
      fatal = "data on unknown stream " + s.id();
      return;
    }
    int n;
    if (call.cancelled) {
      do {
        scratch.clear();
        n = connection.read(s, scratch);
      } while (n > 0);
      return;
    }
    do {
      scratch.clear();
      n = connection.read(s, scratch);
      if (n > 0 && call.firstByteNs < 0) {
        call.firstByteNs = nowNs;
      }
      for (int i = 0; i < n; i++) {
        if (scratch.get(i) != Content.at(seed, s.id(), 1, call.read + i)) {
          call.error = "response byte " + (call.read + i) + " of stream " + s.id() + " differs";
          fatal = call.error;
          return;
        }
      }
      call.read += n;
    } while (n > 0);
    if (s.receive().isReset()) {
      call.error = "stream " + s.id() + " reset by server";
      fatal = call.error;
    } else if (s.receive().isFinished() && call.doneNs < 0) {
      if (call.read != call.responseBytes) {
        call.error = "stream " + s.id() + " ended after " + call.read + " of "
            + call.responseBytes + " bytes";
        fatal = call.error;
      } else {
        call.doneNs = nowNs;
      }
    }
  }

  @Override
  public void onReset(Stream s, long code) {
    Call call = byStream.get(s.id());
    if (call != null && call.cancelled) {
      return; // the answer to our STOP_SENDING
    }
    fatal = "server reset stream " + s.id();
  }

  @Override
  public void onClosed(Connection c, TransportError error, long code, String reason,
      boolean byPeer) {
    if (error != TransportError.NO_ERROR && !(error == TransportError.APPLICATION_ERROR
        && code == 0)) {
      fatal = "connection closed " + (byPeer ? "by server" : "locally") + ": " + error + " "
          + reason;
    }
  }
}
