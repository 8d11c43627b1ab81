package dev.tern.transport.quic;

import dev.tern.conformance.PatternDownload;
import dev.tern.rpc.spi.ClientStream;
import dev.tern.rpc.spi.ClientStreamListener;
import dev.tern.rpc.spi.RequestHeaders;
import dev.tern.rpc.spi.ServerStream;
import dev.tern.rpc.spi.ServerStreamListener;
import dev.tern.rpc.spi.ServerTransport;
import dev.tern.rpc.spi.ServerTransportListener;
import io.grpc.Metadata;
import io.grpc.Status;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One side of {@link ClientAddressChangeTest}, run as its own process inside a netlab namespace.
 *
 * <p>{@code server <address>}: serves downloads on {@code <address>:0} with a fresh self-signed
 * certificate, prints {@code PORT <n> <certificate PEM in base64>}, and for every call that
 * completes prints {@code SERVED <the connection's peer address then>}; for every line on its
 * standard input prints {@code PEER <the last call's connection's peer address now> PATHS <quiche's
 * paths>}; exits when its standard input closes.
 *
 * <p>{@code client <address> <port> <certificate> quiet|busy}: trusting that certificate, with a
 * 64 KiB stream window, downloads {@link #MESSAGES} messages of {@link #SIZE} bytes from a {@link
 * StagedDownload}, checking every byte: a first request message brings a third of them, after
 * which it prints {@code MOVE}. {@code quiet}: first it waits until nothing arrives any longer,
 * and after {@code MOVE} it waits for a line on its standard input; then a second message (and the
 * half-close) asks for the rest, which therefore crosses the network after whatever the parent
 * did in between, with nothing in flight while it did. {@code busy}: it asks for the rest at once,
 * so data is in flight during the move. Then prints {@code DONE <bytes> <status code> <refused
 * sends> <status description>}, keeps its connection until its standard input closes, and exits.
 */
public final class MigrationPeer {
  /** Messages per download. */
  static final int MESSAGES = 48;
  /** Bytes per message. */
  static final int SIZE = 16 * 1024;
  /**
   * How long no byte may arrive before the connection counts as quiet: several round trips of the
   * {@code mobile} link (200-300 ms), so that a retransmission still due is not taken for quiet. With
   * 300 ms the mobile download once stalled on a loaded machine, as it does when data is in flight
   * at the move (the quiche in Netty never sends that again).
   */
  private static final long QUIET_MILLIS = 1_000;

  private MigrationPeer() {}

  /**
   * Runs one side.
   *
   * @param args {@code server <address>} or {@code client <address> <port>}
   */
  public static void main(String[] args) throws Exception {
    if (args.length == 2 && args[0].equals("server")) {
      server(args[1]);
    } else if (args.length == 5 && args[0].equals("client") && (args[4].equals("quiet") || args[4].equals("busy"))) {
      System.exit(client(args[1], Integer.parseInt(args[2]), java.util.Base64.getDecoder().decode(args[3]),
          args[4].equals("quiet")));
    } else {
      throw new IllegalArgumentException("usage: server <address> | client <address> <port> <certificate> quiet|busy, was "
          + String.join(" ", args));
    }
  }


  private static void server(String address) throws Exception {
    dev.tern.conformance.TestCertificates certs = dev.tern.conformance.TestCertificates.generate();
    ServerTransport transport = Harness.PROVIDER.newServerTransport(new InetSocketAddress(address, 0),
        dev.tern.rpc.spi.TransportOptions.defaults().with(dev.tern.rpc.spi.TransportOptions.TLS, certs.server()));
    java.util.concurrent.atomic.AtomicReference<ServerStream> last = new java.util.concurrent.atomic.AtomicReference<>();
    transport.start(new ServerTransportListener() {
      @Override
      public ServerStreamListener streamCreated(ServerStream stream, RequestHeaders headers) {
        last.set(stream);
        return new StagedDownload(stream);
      }

      @Override
      public void serverTerminated() {}
    });
    System.out.println("PORT " + ((InetSocketAddress) transport.listenAddress()).getPort() + " "
        + java.util.Base64.getEncoder().encodeToString(certs.certificatePem()));
    System.out.flush();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    while (in.readLine() != null) {
      // Runs until the parent closes the pipe.
      ServerStream stream = last.get();
      System.out.println("PEER " + (stream == null ? "none" : stream.connectionInfo().remoteAddress()
          + " PATHS " + paths((QuicServerStream) stream)));
      System.out.flush();
    }
    transport.shutdownNow(Status.UNAVAILABLE.withDescription("test over"));
  }

  /**
   * The server's side of a download in two stages: the first request message brings {@link
   * #MESSAGES}{@code / 3} messages of {@link #SIZE} bytes ({@link PatternDownload#fill}), the second
   * the rest, then the call ends OK. The rest therefore leaves only after the client has asked for
   * it, after the move: its window cannot have taken it in beforehand (quiche grows a stream's
   * window as fast as it is read, so on an unshaped link a window-bound pause could hold the whole
   * download and nothing crossed after the move). Prints {@code SERVED <peer address>} when the
   * call completes.
   */
  private static final class StagedDownload implements ServerStreamListener {
    private final ServerStream stream;
    private int allowed;
    private int sent;

    StagedDownload(ServerStream stream) {
      this.stream = stream;
      stream.request(1);
    }

    @Override
    public void onMessage(ByteBuffer message) {
      if (allowed == 0) {
        stream.writeHeaders(new Metadata());
        allowed = MESSAGES / 3;
      } else {
        allowed = MESSAGES;
      }
      stream.request(1);
      pump();
    }

    @Override
    public void onHalfClose() {}

    @Override
    public void onReady() {
      pump();
    }

    private void pump() {
      while (sent < allowed && stream.isReady()) {
        byte[] b = new byte[SIZE];
        java.util.Arrays.fill(b, PatternDownload.fill(sent));
        stream.writeMessage(ByteBuffer.wrap(b));
        sent++;
      }
      stream.flush();
      if (sent == MESSAGES) {
        sent++;
        stream.close(Status.OK, new Metadata());
      }
    }

    @Override
    public void onComplete() {
      System.out.println("SERVED " + stream.connectionInfo().remoteAddress());
      System.out.flush();
    }

    @Override
    public void onCancel(Status status) {
      System.out.println("CANCELLED " + status);
      System.out.flush();
    }
  }

  /**
   * quiche's own paths of the stream's connection, as {@code <peer address> active|idle <bytes
   * sent>} separated by {@code ;}: what quiche sends to, not the peer address Netty reports.
   */
  private static String paths(QuicServerStream stream) {
    io.netty.handler.codec.quic.QuicChannel quic = (io.netty.handler.codec.quic.QuicChannel) stream.channel.parent();
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < 8; i++) {
      io.netty.util.concurrent.Future<io.netty.handler.codec.quic.QuicConnectionPathStats> f =
          quic.collectPathStats(i).awaitUninterruptibly();
      if (!f.isSuccess()) {
        break;
      }
      io.netty.handler.codec.quic.QuicConnectionPathStats p = f.getNow();
      b.append(p.peerAddress()).append(p.active() ? " active " : " idle ").append(p.sentBytes()).append(';');
    }
    return b.toString();
  }

  /**
   * Waits until the connection is quiet: the server has filled the stream window and stopped, and
   * what it sent has arrived (no byte received for {@link #QUIET_MILLIS}), so nothing of the
   * download is in flight when the address moves. Gives up waiting after 10 s.
   */
  private static void awaitQuiet(QuicClientTransport transport) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    long last = -1;
    long quietSince = System.nanoTime();
    while (System.nanoTime() < deadline) {
      long now = transport.connectionInfo().bytesReceived();
      if (now != last) {
        last = now;
        quietSince = System.nanoTime();
      } else if (System.nanoTime() - quietSince >= TimeUnit.MILLISECONDS.toNanos(QUIET_MILLIS)) {
        return;
      }
      TimeUnit.MILLISECONDS.sleep(20);
    }
  }

  private static int client(String address, int port, byte[] trustedPem, boolean quiet) throws Exception {
    QuicClientTransport transport = (QuicClientTransport) Harness.PROVIDER.newClientTransport(
        new InetSocketAddress(address, port), "localhost:" + port, dev.tern.rpc.spi.TransportOptions.defaults()
            .with(dev.tern.rpc.spi.TransportOptions.TLS, dev.tern.rpc.spi.TlsSettings.forClient(trustedPem))
            // A small stream window: while the client pauses, the server can send only this much,
            // so most of the download crosses the network after the move.
            .with(dev.tern.rpc.spi.TransportOptions.FLOW_CONTROL_WINDOW, 64 * 1024));
    Harness.TransportEvents events = new Harness.TransportEvents();
    transport.start(events);
    try {
      events.ready.get(20, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("not ready in 20 s; shutdown: " + events.shutdown.getNow(null), e);
    }
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    CompletableFuture<Status> done = new CompletableFuture<>();
    long[] bytes = new long[1];
    ClientStream[] call = new ClientStream[1];
    call[0] = transport.newStream(RequestHeaders.builder("test.Migration/Download").build(), new ClientStreamListener() {
      private int received;

      @Override
      public void onHeaders(Metadata headers) {}

      /** The second request message: the server sends the other two thirds only after it. */
      private void askForTheRest() {
        call[0].writeMessage(ByteBuffer.wrap(new byte[] {'m'}));
        call[0].halfClose();
        call[0].request(1);
      }

      @Override
      public void onMessage(ByteBuffer message) {
        byte want = PatternDownload.fill(received);
        while (message.hasRemaining()) {
          if (message.get() != want) {
            done.complete(Status.DATA_LOSS.withDescription("message " + received + " corrupted"));
            return;
          }
          bytes[0]++;
        }
        received++;
        if (received == MESSAGES / 3 && !quiet) {
          System.out.println("MOVE");
          System.out.flush();
          askForTheRest();
        } else if (received == MESSAGES / 3) {
          CompletableFuture.runAsync(() -> {
            try {
              awaitQuiet(transport);
              System.out.println("MOVE");
              System.out.flush();
              in.readLine();
            } catch (java.io.IOException | InterruptedException e) {
              done.completeExceptionally(e);
              return;
            }
            askForTheRest();
          });
        } else {
          call[0].request(1);
        }
      }

      @Override
      public void onReady() {}

      @Override
      public void onClose(Status status, Metadata trailers) {
        done.complete(status);
      }
    });
    call[0].writeMessage(ByteBuffer.wrap(new byte[] {'s'}));
    call[0].flush();
    call[0].request(1);
    Status status = done.get(60, TimeUnit.SECONDS);
    System.out.println("DONE " + bytes[0] + " " + status.getCode() + " " + transport.refusedSends()
        + " " + status.getDescription());
    System.out.flush();
    // The connection stays up so the parent can ask the server where it sees the client now.
    while (in.readLine() != null) {
      // Until the parent closes the pipe.
    }
    transport.shutdownNow(Status.UNAVAILABLE.withDescription("test over"));
    return 0;
  }
}
