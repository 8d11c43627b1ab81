package dev.tern.transport.quic;

import dev.tern.rpc.ConnectionInfo;
import dev.tern.rpc.spi.ClientStream;
import dev.tern.rpc.spi.ClientStreamListener;
import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.RequestHeaders;
import dev.tern.rpc.spi.ServerStream;
import dev.tern.rpc.spi.ServerStreamListener;
import dev.tern.rpc.spi.ServerTransport;
import dev.tern.rpc.spi.ServerTransportListener;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.Metadata;
import io.grpc.Status;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;

/** Small SPI-level client and server recorders for the QUIC transport tests. */
final class Harness {
  private Harness() {}

  static final QuicTransportProvider PROVIDER = new QuicTransportProvider();

  static TransportOptions serverOptions() {
    return TransportOptions.defaults().with(TransportOptions.TLS, TestCertificates.server());
  }

  static TransportOptions clientOptions() {
    return TransportOptions.defaults().with(TransportOptions.TLS, TestCertificates.client());
  }

  static ByteBuffer utf8(String s) {
    return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
  }

  static String string(ByteBuffer b) {
    byte[] a = new byte[b.remaining()];
    b.get(a);
    return new String(a, StandardCharsets.UTF_8);
  }

  /** A server whose calls echo every request message and end OK when the client half-closes. */
  static class EchoServer implements ServerTransportListener {
    final ServerTransport transport;
    final BlockingQueue<RequestHeaders> headers = new LinkedBlockingQueue<>();
    final BlockingQueue<ServerStream> streams = new LinkedBlockingQueue<>();
    final BlockingQueue<Status> cancels = new LinkedBlockingQueue<>();
    final CountDownLatch terminated = new CountDownLatch(1);
    volatile boolean autoRequest = true;

    EchoServer(TransportOptions options) throws Exception {
      transport = PROVIDER.newServerTransport(new InetSocketAddress("127.0.0.1", 0), options);
      transport.start(this);
    }

    int port() {
      return ((InetSocketAddress) transport.listenAddress()).getPort();
    }

    @Override
    public ServerStreamListener streamCreated(ServerStream stream, RequestHeaders h) {
      headers.add(h);
      streams.add(stream);
      if (autoRequest) {
        stream.request(1);
      }
      return new ServerStreamListener() {
        boolean headersSent;

        @Override
        public void onMessage(ByteBuffer message) {
          if (!headersSent) {
            headersSent = true;
            Metadata md = new Metadata();
            md.put(Metadata.Key.of("x-echo", Metadata.ASCII_STRING_MARSHALLER), "yes");
            Metadata.Key<String> in = Metadata.Key.of("x-ascii", Metadata.ASCII_STRING_MARSHALLER);
            if (h.metadata().get(in) != null) {
              md.put(in, h.metadata().get(in));
            }
            Metadata.Key<byte[]> bin = Metadata.Key.of("x-bin", Metadata.BINARY_BYTE_MARSHALLER);
            if (h.metadata().get(bin) != null) {
              md.put(bin, h.metadata().get(bin));
            }
            stream.writeHeaders(md);
          }
          stream.writeMessage(message);
          stream.flush();
          stream.request(1);
        }

        @Override
        public void onHalfClose() {
          Metadata trailers = new Metadata();
          trailers.put(Metadata.Key.of("x-trailer", Metadata.ASCII_STRING_MARSHALLER), "done");
          stream.close(Status.OK.withDescription("fine ✓ 100%"), trailers);
        }

        @Override
        public void onReady() {}

        @Override
        public void onComplete() {}

        @Override
        public void onCancel(Status status) {
          cancels.add(status);
        }
      };
    }

    @Override
    public void serverTerminated() {
      terminated.countDown();
    }
  }

  /** A listener for servers that are never meant to get a call. */
  static final class NoCalls implements ServerTransportListener {
    @Override
    public ServerStreamListener streamCreated(ServerStream stream, RequestHeaders headers) {
      throw new AssertionError("no call expected");
    }

    @Override
    public void serverTerminated() {}
  }

  /** Records a client transport's events. */
  static class TransportEvents implements ClientTransport.Listener {
    final CompletableFuture<ConnectionInfo> ready = new CompletableFuture<>();
    final CompletableFuture<Status> shutdown = new CompletableFuture<>();
    final CountDownLatch terminated = new CountDownLatch(1);

    @Override
    public void transportReady(ConnectionInfo info) {
      ready.complete(info);
    }

    @Override
    public void transportShutdown(Status status) {
      shutdown.complete(status);
    }

    @Override
    public void transportTerminated() {
      terminated.countDown();
    }
  }

  /** Records one client stream's events. */
  static final class Call implements ClientStreamListener {
    final List<String> messages = new CopyOnWriteArrayList<>();
    final CompletableFuture<Metadata> headers = new CompletableFuture<>();
    final CompletableFuture<Status> status = new CompletableFuture<>();
    volatile Metadata trailers;
    ClientStream stream;

    @Override
    public void onHeaders(Metadata h) {
      headers.complete(h);
    }

    @Override
    public void onMessage(ByteBuffer message) {
      messages.add(string(message));
    }

    @Override
    public void onReady() {}

    @Override
    public void onClose(Status s, Metadata t) {
      trailers = t;
      status.complete(s);
    }

    /** Whether the stream ended as refused unprocessed (safe to send again elsewhere). */
    volatile boolean refused;

    @Override
    public void onRefused(Status s) {
      refused = true;
      onClose(s, new Metadata());
    }
  }

  static Call call(ClientTransport t, RequestHeaders h) {
    Call c = new Call();
    c.stream = t.newStream(h, c);
    return c;
  }
}
