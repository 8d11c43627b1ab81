package dev.tern.transport.udp.rpc;

import dev.tern.conformance.PatternDownload;
import dev.tern.rpc.spi.ClientStream;
import dev.tern.rpc.spi.ClientStreamListener;
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
import java.util.Base64;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One side of {@link UdpClientAddressChangeTest}, run as its own process inside a netlab
 * namespace.
 *
 * <p>{@code server <address>}: serves downloads over {@code udp} on {@code <address>:0} with a
 * fresh static key, prints {@code PORT <n> <the key's public half in base64>}, and for every call
 * that completes prints {@code SERVED <the client's address as the connection has it then>};
 * exits when its standard input closes.
 *
 * <p>{@code client <address> <port> <public key>}: pinning that key, with a 64 KiB stream window,
 * downloads {@link #MESSAGES} messages of {@link #SIZE} bytes, checking every byte. After a third
 * of them it prints {@code MOVE} and reads no further until a line arrives on its standard input
 * (the parent moves its address in between), so two thirds of the download cross the network
 * after the move, and on a slow link what the window let the server send is still in flight
 * during it. Then prints {@code DONE <bytes> <status code> <own address changes> <status
 * description>}.
 */
public final class UdpMovePeer {
  /** Messages per download. */
  static final int MESSAGES = 128;
  /** Bytes per message. */
  static final int SIZE = 16 * 1024;

  private UdpMovePeer() {}

  /**
   * Runs one side.
   *
   * @param args {@code server <address>} or {@code client <address> <port> <public key>}
   */
  public static void main(String[] args) throws Exception {
    if (args.length == 2 && args[0].equals("server")) {
      server(args[1]);
    } else if (args.length == 4 && args[0].equals("client")) {
      client(args[1], Integer.parseInt(args[2]), Base64.getDecoder().decode(args[3]));
    } else {
      throw new IllegalArgumentException("usage: server <address> | client <address> <port> <public key>, was "
          + String.join(" ", args));
    }
  }


  private static void server(String address) throws Exception {
    byte[] key = UdpTransportOptions.newServerKey();
    ServerTransport transport = new UdpTransportProvider().newServerTransport(new InetSocketAddress(address, 0),
        TransportOptions.defaults().with(UdpTransportOptions.SERVER_STATIC_KEY, key));
    transport.start(new ServerTransportListener() {
      @Override
      public ServerStreamListener streamCreated(ServerStream stream, RequestHeaders headers) {
        return new PatternDownload(stream, MESSAGES, SIZE);
      }

      @Override
      public void serverTerminated() {}
    });
    System.out.println("PORT " + ((InetSocketAddress) transport.listenAddress()).getPort() + " "
        + Base64.getEncoder().encodeToString(UdpTransportOptions.publicKeyOf(key)));
    System.out.flush();
    while (System.in.read() >= 0) {
      // Runs until the parent closes the pipe.
    }
    transport.shutdownNow(Status.UNAVAILABLE.withDescription("test over"));
  }

  private static void client(String address, int port, byte[] pin) throws Exception {
    UdpClientTransport transport = (UdpClientTransport) new UdpTransportProvider().newClientTransport(
        new InetSocketAddress(address, port), address + ":" + port,
        TransportOptions.defaults().with(UdpTransportOptions.PINNED_SERVER_KEY, pin)
            .with(TransportOptions.FLOW_CONTROL_WINDOW, 64 * 1024));
    Loopback.Events events = new Loopback.Events();
    transport.start(events);
    try {
      events.ready.get(20, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("not ready in 20 s; shutdown: " + events.shutdown.getNow(null), e);
    }
    java.io.BufferedReader in = new java.io.BufferedReader(
        new java.io.InputStreamReader(System.in, java.nio.charset.StandardCharsets.UTF_8));
    CompletableFuture<Status> done = new CompletableFuture<>();
    long[] bytes = new long[1];
    ClientStream[] call = new ClientStream[1];
    call[0] = transport.newStream(RequestHeaders.builder("test.Move/Download").build(), new ClientStreamListener() {
      private int received;

      @Override
      public void onHeaders(Metadata headers) {}

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
        if (received == MESSAGES / 3) {
          System.out.println("MOVE");
          System.out.flush();
          CompletableFuture.runAsync(() -> {
            try {
              in.readLine();
            } catch (java.io.IOException e) {
              done.completeExceptionally(e);
              return;
            }
            call[0].request(1);
          });
          return;
        }
        call[0].request(1);
      }

      @Override
      public void onReady() {}

      @Override
      public void onClose(Status status, Metadata trailers) {
        done.complete(status);
      }
    });
    call[0].halfClose();
    call[0].request(1);
    Status status = done.get(60, TimeUnit.SECONDS);
    long moves;
    try {
      moves = Loopback.clientStat(transport, st -> st.localAddressChanges);
    } catch (IllegalStateException terminated) {
      moves = -1; // the connection is gone with its counters; the status says why
    }
    System.out.println("DONE " + bytes[0] + " " + status.getCode() + " " + moves + " " + status.getDescription());
    System.out.flush();
    transport.shutdownNow(Status.UNAVAILABLE.withDescription("test over"));
  }
}
