package dev.tern.conformance;

import dev.tern.rpc.ConnectionInfo;
import dev.tern.rpc.inprocess.InProcessTransportProvider;
import dev.tern.rpc.spi.ClientStream;
import dev.tern.rpc.spi.ClientStreamListener;
import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.RequestHeaders;
import dev.tern.rpc.spi.ServerStream;
import dev.tern.rpc.spi.ServerStreamListener;
import dev.tern.rpc.spi.ServerTransport;
import dev.tern.rpc.spi.ServerTransportListener;
import dev.tern.rpc.spi.TransportOptions;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.grpc.Metadata;
import io.grpc.Status;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Broken transports for testing the suite: the in-process transport with one fault each. The
 * suite must reject every one of them.
 */
final class FaultyTransports {
  private FaultyTransports() {}

  /** The in-process transport with hooks to wrap each stream. */
  abstract static class Faulty extends InProcessTransportProvider {
    private final String name;

    Faulty(String name) {
      this.name = name;
    }

    @Override
    public String name() {
      return name;
    }

    ClientStream wrapClient(ClientStream s) {
      return s;
    }

    ServerStream wrapServer(ServerStream s) {
      return s;
    }

    /** Whether the server's connection events reach the call layer. */
    boolean reportsConnections() {
      return true;
    }

    @Override
    public ClientTransport newClientTransport(SocketAddress address, String authority, TransportOptions options) {
      ClientTransport inner = super.newClientTransport(address, authority, options);
      return new ClientTransport() {
        @Override public void start(Listener listener) { inner.start(listener); }

        @Override
        public ClientStream newStream(RequestHeaders headers, ClientStreamListener listener) {
          return wrapClient(inner.newStream(headers, listener));
        }

        @Override public ConnectionInfo connectionInfo() { return inner.connectionInfo(); }

        @Override public void shutdown() { inner.shutdown(); }

        @Override public void shutdownNow(Status status) { inner.shutdownNow(status); }
      };
    }

    @Override
    public ServerTransport newServerTransport(SocketAddress bindAddress, TransportOptions options) {
      ServerTransport inner = super.newServerTransport(bindAddress, options);
      return new ServerTransport() {
        @Override
        public void start(ServerTransportListener listener) throws IOException {
          inner.start(new ServerTransportListener() {
            @Override
            public ServerStreamListener streamCreated(ServerStream stream, RequestHeaders headers) {
              return listener.streamCreated(wrapServer(stream), headers);
            }

            @Override public void serverTerminated() { listener.serverTerminated(); }

            @Override
            public ConnectionListener connectionCreated(ConnectionHandle connection) {
              return reportsConnections() ? listener.connectionCreated(connection) : ConnectionListener.PASS_THROUGH;
            }
          });
        }

        @Override public SocketAddress listenAddress() { return inner.listenAddress(); }

        @Override public void shutdown() { inner.shutdown(); }

        @Override public void shutdownNow(Status status) { inner.shutdownNow(status); }
      };
    }
  }

  /** Forwards every client-stream method; subclasses break one. */
  static class ForwardingClientStream implements ClientStream {
    final ClientStream inner;

    ForwardingClientStream(ClientStream inner) {
      this.inner = inner;
    }

    @Override public void writeMessage(ByteBuffer message) { inner.writeMessage(message); }

    @Override public void flush() { inner.flush(); }

    @Override public void request(int numMessages) { inner.request(numMessages); }

    @Override public void halfClose() { inner.halfClose(); }

    @Override public void cancel(Status status) { inner.cancel(status); }

    @Override public boolean isReady() { return inner.isReady(); }
  }

  /** Loses the second message a client writes on each stream. */
  static final class DropsAMessage extends Faulty {
    DropsAMessage() {
      super("faulty-drop");
    }

    @Override
    ClientStream wrapClient(ClientStream s) {
      return new ForwardingClientStream(s) {
        private int written;

        @Override
        public void writeMessage(ByteBuffer message) {
          if (++written != 2) {
            inner.writeMessage(message);
          }
        }
      };
    }
  }

  /** Delivers messages whether or not they were requested. */
  static final class IgnoresRequestN extends Faulty {
    private static final int PLENTY = 1 << 20;

    IgnoresRequestN() {
      super("faulty-request-n");
    }

    @Override
    ClientStream wrapClient(ClientStream s) {
      return new ForwardingClientStream(s) {
        @Override
        public void request(int numMessages) {
          inner.request(PLENTY);
        }
      };
    }

    @Override
    ServerStream wrapServer(ServerStream s) {
      return new ForwardingServerStream(s) {
        @Override
        public void request(int numMessages) {
          inner.request(PLENTY);
        }
      };
    }
  }

  /** Never passes a client's cancel on. */
  static final class IgnoresCancel extends Faulty {
    IgnoresCancel() {
      super("faulty-cancel");
    }

    @Override
    ClientStream wrapClient(ClientStream s) {
      return new ForwardingClientStream(s) {
        @Override
        public void cancel(Status status) {}
      };
    }
  }

  /** Copies each request message into a pooled Netty buffer that it never releases. */
  static final class LeaksABuffer extends Faulty {
    /** Kept only until the next write, so the leaked buffers become unreachable. */
    private final List<ByteBuf> lastLeaked = new ArrayList<>();

    LeaksABuffer() {
      super("faulty-leak");
    }

    @Override
    ClientStream wrapClient(ClientStream s) {
      return new ForwardingClientStream(s) {
        @Override
        public void writeMessage(ByteBuffer message) {
          ByteBuf copy = PooledByteBufAllocator.DEFAULT.directBuffer(message.remaining());
          copy.writeBytes(message.duplicate());
          synchronized (lastLeaked) {
            lastLeaked.clear();
            lastLeaked.add(copy);
          }
          inner.writeMessage(message);
        }
      };
    }
  }

  /** Forwards every server-stream method; subclasses break one. */
  static class ForwardingServerStream implements ServerStream {
    final ServerStream inner;

    ForwardingServerStream(ServerStream inner) {
      this.inner = inner;
    }

    @Override public void writeHeaders(Metadata headers) { inner.writeHeaders(headers); }

    @Override public void writeMessage(ByteBuffer message) { inner.writeMessage(message); }

    @Override public void flush() { inner.flush(); }

    @Override public void request(int numMessages) { inner.request(numMessages); }

    @Override public void close(Status status, Metadata trailers) { inner.close(status, trailers); }

    @Override public void cancel(Status status) { inner.cancel(status); }

    @Override public boolean isReady() { return inner.isReady(); }

    @Override public void setMessageCompression(String encoding) { inner.setMessageCompression(encoding); }

    @Override public boolean receivedAsEarlyData() { return inner.receivedAsEarlyData(); }

    @Override public ConnectionInfo connectionInfo() { return inner.connectionInfo(); }
  }

  /** Never tells the call layer of its connections: transport filters see nothing. */
  static final class ForgetsConnections extends Faulty {
    ForgetsConnections() {
      super("faulty-connections");
    }

    @Override
    boolean reportsConnections() {
      return false;
    }
  }
}
