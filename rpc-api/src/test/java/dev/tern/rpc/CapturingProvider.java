package dev.tern.rpc;

import dev.tern.rpc.inprocess.InProcessTransportProvider;
import dev.tern.rpc.spi.RequestHeaders;
import dev.tern.rpc.spi.ServerStream;
import dev.tern.rpc.spi.ServerStreamListener;
import dev.tern.rpc.spi.ServerTransport;
import dev.tern.rpc.spi.ServerTransportListener;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.Status;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The in-process transport under another name, recording the request headers the server sees, and
 * optionally agreeing versions per call in headers (as gRPC over TCP does) instead of in a handshake.
 */
final class CapturingProvider extends InProcessTransportProvider {
  final BlockingQueue<RequestHeaders> seen = new LinkedBlockingQueue<>();
  private final String name;
  private final VersionHandshake handshake;

  CapturingProvider(String name, VersionHandshake handshake) {
    this.name = name;
    this.handshake = handshake;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public VersionHandshake versionHandshake() {
    return handshake;
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
            seen.add(headers);
            return listener.streamCreated(stream, headers);
          }

          @Override
          public void serverTerminated() {
            listener.serverTerminated();
          }

          @Override
          public ConnectionListener connectionCreated(ConnectionHandle connection) {
            return listener.connectionCreated(connection);
          }
        });
      }

      @Override public SocketAddress listenAddress() { return inner.listenAddress(); }

      @Override public void shutdown() { inner.shutdown(); }

      @Override public void shutdownNow(Status status) { inner.shutdownNow(status); }
    };
  }
}
