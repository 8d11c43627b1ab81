package dev.tern.transport.udp.rpc;

import dev.tern.rpc.ConnectionInfo;
import dev.tern.rpc.spi.ClientStream;
import dev.tern.rpc.spi.ClientStreamListener;
import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.RequestHeaders;
import dev.tern.rpc.spi.ServerStream;
import dev.tern.rpc.spi.ServerStreamListener;
import dev.tern.rpc.spi.ServerTransportListener;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.transport.udp.connection.ConnectionStats;
import io.grpc.Metadata;
import io.grpc.Status;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

/**
 * SPI-level peers of the {@code udp} transport over real loopback sockets, for the keep-alive and
 * connection-limit tests: an echo server, a client transport's events, one call's events, and a
 * relay that can stop forwarding.
 */
final class Loopback {
  static final byte[] SERVER_KEY = UdpTransportOptions.newServerKey();
  static final byte[] PIN = UdpTransportOptions.publicKeyOf(SERVER_KEY);
  static final UdpTransportProvider PROVIDER = new UdpTransportProvider();

  private Loopback() {}

  static TransportOptions serverOptions() {
    return TransportOptions.defaults().with(UdpTransportOptions.SERVER_STATIC_KEY, SERVER_KEY);
  }

  static TransportOptions clientOptions() {
    return TransportOptions.defaults().with(UdpTransportOptions.PINNED_SERVER_KEY, PIN);
  }

  static ByteBuffer utf8(String s) {
    return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
  }

  /** A server whose calls echo each request message and end OK when the client half-closes. */
  static final class EchoServer implements ServerTransportListener {
    final UdpServerTransport transport;
    final BlockingQueue<RequestHeaders> headers = new LinkedBlockingQueue<>();
    /** The client's address as each completed call's connection named it at its end. */
    final BlockingQueue<SocketAddress> completedFrom = new LinkedBlockingQueue<>();
    /** The path changes each completed call's connection had counted at its end. */
    final BlockingQueue<Long> completedPathChanges = new LinkedBlockingQueue<>();
    final BlockingQueue<Status> cancels = new LinkedBlockingQueue<>();
    final BlockingQueue<io.grpc.Attributes> attributes = new LinkedBlockingQueue<>();
    final CountDownLatch terminated = new CountDownLatch(1);

    EchoServer(TransportOptions options) throws IOException {
      transport = (UdpServerTransport) PROVIDER.newServerTransport(
          new InetSocketAddress("127.0.0.1", 0), options);
      transport.start(this);
    }

    int port() {
      return ((InetSocketAddress) transport.listenAddress()).getPort();
    }

    @Override
    public ServerStreamListener streamCreated(ServerStream stream, RequestHeaders h) {
      headers.add(h);
      attributes.add(stream.attributes());
      stream.request(1);
      return new ServerStreamListener() {
        boolean headersSent;

        @Override
        public void onMessage(ByteBuffer message) {
          if (!headersSent) {
            headersSent = true;
            stream.writeHeaders(new Metadata());
          }
          stream.writeMessage(message);
          stream.flush();
          stream.request(1);
        }

        @Override
        public void onHalfClose() {
          stream.close(Status.OK, new Metadata());
        }

        @Override
        public void onReady() {}

        @Override
        public void onComplete() {
          completedPathChanges.add(stream.connectionInfo().pathChanges());
          completedFrom.add(stream.connectionInfo().remoteAddress());
        }

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

    /** Stops the server at once and waits for its end; true if it ended in time. */
    boolean stop() throws InterruptedException {
      transport.shutdownNow(Status.UNAVAILABLE.withDescription("test over"));
      return terminated.await(10, TimeUnit.SECONDS);
    }
  }

  /** A client transport's events. */
  static final class Events implements ClientTransport.Listener {
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

  /** One call's events. */
  static final class Call implements ClientStreamListener {
    final CompletableFuture<Metadata> headers = new CompletableFuture<>();
    final CompletableFuture<Status> status = new CompletableFuture<>();
    final BlockingQueue<String> messages = new LinkedBlockingQueue<>();
    /** Whether the call ended as refused unprocessed (safe to send again elsewhere). */
    volatile boolean refused;
    ClientStream stream;

    @Override
    public void onHeaders(Metadata h) {
      headers.complete(h);
    }

    @Override
    public void onMessage(ByteBuffer message) {
      byte[] b = new byte[message.remaining()];
      message.get(b);
      messages.add(new String(b, StandardCharsets.UTF_8));
    }

    @Override
    public void onReady() {}

    @Override
    public void onClose(Status s, Metadata trailers) {
      status.complete(s);
    }

    @Override
    public void onRefused(Status s) {
      refused = true;
      status.complete(s);
    }
  }

  /** A started client transport to {@code port}, ready. */
  static UdpClientTransport connect(int port, TransportOptions options, Events events)
      throws Exception {
    UdpClientTransport t = (UdpClientTransport) PROVIDER.newClientTransport(
        new InetSocketAddress("127.0.0.1", port), "localhost:" + port, options);
    t.start(events);
    events.ready.get(10, TimeUnit.SECONDS);
    return t;
  }

  /** A call that sends {@code text} and stays open (not half-closed). */
  static Call open(ClientTransport t, String method, String text) {
    Call c = new Call();
    c.stream = t.newStream(RequestHeaders.builder(method).build(), c);
    c.stream.request(2);
    c.stream.writeMessage(utf8(text));
    c.stream.flush();
    return c;
  }

  /** A whole unary echo call. */
  static Call echo(ClientTransport t, String method, String text) {
    Call c = open(t, method, text);
    c.stream.halfClose();
    return c;
  }

  /** A counter of the client's connection, read on its loop. */
  static long clientStat(UdpClientTransport t, ToLongFunction<ConnectionStats> counter)
      throws Exception {
    CompletableFuture<Long> v = new CompletableFuture<>();
    if (!t.run(() -> v.complete(counter.applyAsLong(t.connection().stats())))) {
      throw new IllegalStateException("the client transport has terminated");
    }
    return v.get(10, TimeUnit.SECONDS);
  }

  /** Waits until every connection of {@code server} has no stream and nothing unacknowledged. */
  static void awaitQuiescent(EchoServer server) throws Exception {
    while (true) {
      CompletableFuture<Boolean> quiet = new CompletableFuture<>();
      if (!server.transport.run(() -> quiet.complete(server.transport.allQuiescent()))) {
        throw new IllegalStateException("the server has terminated");
      }
      if (quiet.get(10, TimeUnit.SECONDS)) {
        return;
      }
    }
  }

  /**
   * Forwards datagrams between one client and a server, both ways, until closed; {@link
   * #blackHole} drops everything from then on, as a path that died would; {@link #dropToServer}
   * only what the client sends; {@link #dropEveryToClient} one in so many of the server's, as a
   * lossy path would (counted in {@link #droppedToClient} and {@link #droppedBytesToClient}).
   */
  static final class Relay implements AutoCloseable {
    private final DatagramSocket front;
    /** Faces the server; {@link #rebindToServer} replaces it, as a NAT that picks a new port. */
    private volatile DatagramSocket back;
    private volatile SocketAddress client;
    /** Where the client's datagrams go; {@link #switchTo} changes it. */
    private volatile InetSocketAddress server;
    volatile boolean blackHole;
    volatile boolean dropToServer;
    /** Drops every n-th datagram the server sends, counted from when it is set; 0: none. */
    volatile int dropEveryToClient;
    final java.util.concurrent.atomic.AtomicLong droppedToClient = new java.util.concurrent.atomic.AtomicLong();
    final java.util.concurrent.atomic.AtomicLong droppedBytesToClient = new java.util.concurrent.atomic.AtomicLong();
    /** While not released, the server's datagrams wait in the relay (the client's still pass). */
    private final java.util.concurrent.CountDownLatch toClient = new java.util.concurrent.CountDownLatch(1);

    Relay(int serverPort) throws IOException {
      this(serverPort, true);
    }

    private Relay(int serverPort, boolean released) throws IOException {
      if (released) {
        toClient.countDown();
      }
      InetAddress loopback = InetAddress.getByName("127.0.0.1");
      front = new DatagramSocket(new InetSocketAddress(loopback, 0));
      back = new DatagramSocket(new InetSocketAddress(loopback, 0));
      server = new InetSocketAddress(loopback, serverPort);
      start("relay to server", front, back, true);
      start("relay to client", back, front, false);
    }

    int port() {
      return front.getLocalPort();
    }

    /** The port the relay faces the server from now. */
    int backPort() {
      return back.getLocalPort();
    }

    /** A relay that holds the server's datagrams until {@link #releaseToClient}. */
    static Relay holdingToClient(int serverPort) throws IOException {
      return new Relay(serverPort, false);
    }

    /** Lets the server's datagrams, the held ones first, through to the client. */
    void releaseToClient() {
      toClient.countDown();
    }

    /**
     * A NAT rebinding: the relay faces the server from a new port from now on, and what the
     * server still sends to the old one is lost (that socket is closed).
     *
     * @return the new port the server sees
     */
    int rebindToServer() throws IOException {
      DatagramSocket old = back;
      DatagramSocket next = new DatagramSocket(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
      back = next;
      start("relay to client", next, front, false);
      old.close();
      return next.getLocalPort();
    }

    /**
     * From now on the client's datagrams go to the server at {@code serverPort}, and its answers
     * come back: to the client, the server at its address restarted.
     */
    void switchTo(int serverPort) {
      server = new InetSocketAddress(server.getAddress(), serverPort);
    }

    private void start(String name, DatagramSocket from, DatagramSocket to, boolean upstream) {
      Thread t = new Thread(() -> {
        byte[] buf = new byte[2048];
        DatagramPacket p = new DatagramPacket(buf, buf.length);
        long toClientSeen = 0;
        try {
          while (true) {
            p.setData(buf);
            from.receive(p);
            if (upstream) {
              client = p.getSocketAddress();
            } else if (!p.getSocketAddress().equals(server)) {
              continue; // a server the relay no longer leads to
            }
            if (blackHole || (upstream && dropToServer)) {
              continue;
            }
            int every = dropEveryToClient;
            if (!upstream && every > 0 && ++toClientSeen % every == 0) {
              droppedToClient.incrementAndGet();
              droppedBytesToClient.addAndGet(p.getLength());
              continue;
            }
            DatagramPacket out = new DatagramPacket(p.getData(), p.getLength());
            if (upstream) {
              out.setSocketAddress(server);
              DatagramSocket b = back; // the socket facing the server now, not the one at the start
              try {
                b.send(out);
              } catch (IOException e) {
                if (b == back) {
                  throw e;
                }
                // Rebound meanwhile: this datagram is lost, as at a NAT that just changed.
              }
            } else if (client != null) {
              awaitUninterruptibly(toClient);
              out.setSocketAddress(client);
              to.send(out);
            }
          }
        } catch (IOException closed) {
          // The relay was closed: the thread ends.
        }
      }, name);
      t.setDaemon(true);
      t.start();
    }

    private static void awaitUninterruptibly(java.util.concurrent.CountDownLatch latch) {
      boolean interrupted = false;
      while (true) {
        try {
          latch.await();
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }

    @Override
    public void close() {
      toClient.countDown();
      front.close();
      back.close();
    }
  }
}
