package dev.tern.rpc;

import dev.tern.rpc.inprocess.InProcessTransportProvider;
import dev.tern.rpc.spi.ClientStream;
import dev.tern.rpc.spi.ClientStreamListener;
import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.RequestHeaders;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.Status;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The in-process transport under another name ({@code udp}, {@code tcp}) with a scripted connect:
 * it works, works once a gate opens, never answers (a black hole), or fails at once (as after an
 * ICMP port unreachable), or becomes ready on what an earlier connection taught and ends at once,
 * before the server has spoken (a server that refuses connections after their handshake). Counts
 * the transports it made and how they ended.
 */
final class ScriptedProvider extends InProcessTransportProvider {
  /** How a connect goes. */
  enum Script { WORKS, BLACK_HOLE, FAILS, READY_THEN_REFUSED }

  private final String name;
  private final boolean datagram;
  volatile Script script;
  /** Completed to let gated connects become ready; complete at once for ungated ones. */
  volatile CompletableFuture<Void> gate = CompletableFuture.completedFuture(null);
  final AtomicInteger created = new AtomicInteger();
  final AtomicInteger shutdowns = new AtomicInteger();
  final AtomicInteger terminated = new AtomicInteger();
  final AtomicInteger streams = new AtomicInteger();
  final List<ClientTransport> transports = new CopyOnWriteArrayList<>();

  /**
   * @param datagram whether it says it runs over datagrams (and, like {@code udp} and {@code quic},
   *     that it can send 0-RTT early data), so that a channel races it against a stream transport
   */
  ScriptedProvider(String name, Script script, boolean datagram) {
    this.name = name;
    this.script = script;
    this.datagram = datagram;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public boolean isDatagram() {
    return datagram;
  }

  @Override
  public boolean supportsEarlyData() {
    return datagram;
  }

  /** Transports made that have not yet told of their termination. */
  int live() {
    return created.get() - terminated.get();
  }

  @Override
  public ClientTransport newClientTransport(SocketAddress address, String authority, TransportOptions options) {
    created.incrementAndGet();
    Script s = script;
    boolean works = s == Script.WORKS || s == Script.READY_THEN_REFUSED;
    ClientTransport inner = works ? super.newClientTransport(address, authority, options) : null;
    CompletableFuture<Void> g = gate;
    ClientTransport t = new ClientTransport() {
      private Listener listener;
      private boolean ended;

      @Override
      public void start(Listener l) {
        listener = l;
        if (s == Script.FAILS) {
          end(Status.UNAVAILABLE.withDescription("port unreachable (scripted)"));
        } else if (works) {
          inner.start(new Listener() {
            @Override
            public void transportReady(ConnectionInfo info) {
              g.thenRun(() -> {
                l.transportReady(ConnectionInfo.builder(name).protocolVersion(info.protocolVersion()).build());
                if (s == Script.READY_THEN_REFUSED) {
                  inner.shutdownNow(Status.UNAVAILABLE.withDescription("connection refused after its handshake"
                      + " (scripted)"));
                }
              });
            }

            @Override
            public void transportShutdown(Status status) {
              l.transportShutdown(status);
            }

            @Override
            public void transportTerminated() {
              terminated.incrementAndGet();
              l.transportTerminated();
            }
          });
        }
      }

      private synchronized void end(Status status) {
        if (ended) {
          return;
        }
        ended = true;
        listener.transportShutdown(status);
        terminated.incrementAndGet();
        listener.transportTerminated();
      }

      @Override
      public ClientStream newStream(RequestHeaders headers, ClientStreamListener l) {
        if (inner == null) {
          throw new IllegalStateException(name + ": a call was routed to a transport that never became ready");
        }
        streams.incrementAndGet();
        return inner.newStream(headers, l);
      }

      @Override
      public boolean confirmed() {
        return s != Script.READY_THEN_REFUSED;
      }

      @Override
      public ConnectionInfo connectionInfo() {
        return ConnectionInfo.builder(name)
            .protocolVersion(inner == null ? 0 : inner.connectionInfo().protocolVersion()).build();
      }

      @Override
      public void shutdown() {
        shutdowns.incrementAndGet();
        if (inner != null) {
          inner.shutdown();
        } else {
          end(Status.UNAVAILABLE.withDescription("transport shutdown"));
        }
      }

      @Override
      public void shutdownNow(Status status) {
        shutdowns.incrementAndGet();
        if (inner != null) {
          inner.shutdownNow(status);
        } else {
          end(status);
        }
      }
    };
    transports.add(t);
    return t;
  }
}
