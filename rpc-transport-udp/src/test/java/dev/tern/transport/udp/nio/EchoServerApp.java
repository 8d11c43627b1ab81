package dev.tern.transport.udp.nio;

import dev.tern.transport.udp.connection.Connection;
import dev.tern.transport.udp.connection.ConnectionListener;
import dev.tern.transport.udp.frame.TransportError;
import dev.tern.transport.udp.stream.Stream;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Set;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A server application for the socket tests: echoes every stream's bytes back and ends its half
 * when the client's ends, holding at most one buffer per stream (it stops reading while the
 * echo waits for send-buffer room). Loop thread only.
 */
final class EchoServerApp implements ConnectionListener {
  private final Connection connection;
  private final ByteBuffer scratch = ByteBuffer.allocate(16 * 1024);
  private final Map<Long, ByteBuffer> pending = new HashMap<>();
  private final Set<Long> finished = new HashSet<>();
  final CompletableFuture<Boolean> handshake = new CompletableFuture<>();
  /** Completes with whether the client closed the connection (true) or we did. */
  final CompletableFuture<Boolean> closed = new CompletableFuture<>();

  EchoServerApp(Connection connection) {
    this.connection = connection;
  }

  Connection connection() {
    return connection;
  }

  @Override
  public void onHandshakeComplete(Connection c) {
    handshake.complete(true);
  }

  @Override
  public void onReadable(Stream s) {
    pump(s);
  }

  @Override
  public void onWritable(Stream s) {
    pump(s);
  }

  private void pump(Stream s) {
    long id = s.id();
    while (true) {
      ByteBuffer p = pending.get(id);
      if (p != null) {
        connection.write(s, p);
        if (p.hasRemaining()) {
          return; // onWritable resumes
        }
        pending.remove(id);
      }
      scratch.clear();
      int n = connection.read(s, scratch);
      if (n <= 0) {
        break;
      }
      scratch.flip();
      connection.write(s, scratch);
      if (scratch.hasRemaining()) {
        ByteBuffer rest = ByteBuffer.allocate(scratch.remaining());
        rest.put(scratch).flip();
        pending.put(id, rest);
        return;
      }
    }
    if (s.receive().isFinished() && !pending.containsKey(id) && finished.add(id)) {
      connection.finish(s);
    }
  }

  @Override
  public void onClosed(Stream s) {
    pending.remove(s.id());
    finished.remove(s.id());
  }

  @Override
  public void onClosed(Connection c, TransportError error, long code, String reason,
      boolean byPeer) {
    closed.complete(byPeer);
  }
}
