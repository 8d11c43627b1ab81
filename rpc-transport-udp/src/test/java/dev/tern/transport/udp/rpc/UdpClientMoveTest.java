package dev.tern.transport.udp.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.spi.ClientStream;
import dev.tern.rpc.spi.ClientStreamListener;
import dev.tern.rpc.spi.RequestHeaders;
import io.grpc.Metadata;
import io.grpc.Status;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The {@code udp} transport keeps its calls when the client's address changes, on loopback
 * sockets: an echo call of {@link #MESSAGES} messages of 16 KiB, one at a time, every byte
 * checked, whose path changes once a third of the echoes are back. A NAT rebinding
 * (the relay in front of the client faces the server from a new port, and what the server sent to
 * the old one is lost) and a client that moves to a new socket itself ({@link
 * UdpClientEndpoint#rebind()}, as on an interface event) must both complete the call, and the
 * server must end it talking to the new address (RFC 9000 §9.2, §9.3). The move with the old
 * address removed, which only a network namespace can do, is {@code UdpClientAddressChangeTest}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UdpClientMoveTest {
  private static final int MESSAGES = 48;
  private static final int SIZE = 16 * 1024;

  @Test
  void aCallCarriesOnAcrossANatRebinding() throws Exception {
    Loopback.EchoServer server = new Loopback.EchoServer(Loopback.serverOptions());
    Loopback.Events events = new Loopback.Events();
    try (Loopback.Relay relay = new Loopback.Relay(server.port())) {
      UdpClientTransport client = Loopback.connect(relay.port(), Loopback.clientOptions(), events);
      try {
        int[] newPort = new int[1];
        Echoes call = new Echoes(client, () -> newPort[0] = relay.rebindToServer());
        assertThat(call.status.get(30, TimeUnit.SECONDS).getCode()).as("status").isEqualTo(Status.Code.OK);
        assertThat(call.bytes).isEqualTo((long) MESSAGES * SIZE);
        assertThat(call.error).isNull();
        // The client did not move; the server followed the relay's new port.
        assertThat(Loopback.clientStat(client, st -> st.localAddressChanges)).isZero();
        assertThat(serverSees(server)).isEqualTo(newPort[0]);
        assertThat(server.completedPathChanges.poll()).as("path changes the server counted")
            .isEqualTo(1L);
        assertThat(client.connectionInfo().pathChanges()).as("path changes the client counted")
            .isZero();
      } finally {
        client.shutdownNow(Status.CANCELLED.withDescription("test over"));
      }
    } finally {
      assertThat(server.stop()).isTrue();
    }
  }

  @Test
  void aCallCarriesOnWhenTheClientMovesToANewSocket() throws Exception {
    Loopback.EchoServer server = new Loopback.EchoServer(Loopback.serverOptions());
    Loopback.Events events = new Loopback.Events();
    UdpClientTransport client = Loopback.connect(server.port(), Loopback.clientOptions(), events);
    try {
      int before = localPort(client);
      Echoes call = new Echoes(client, client::rebind);
      assertThat(call.status.get(30, TimeUnit.SECONDS).getCode()).as("status").isEqualTo(Status.Code.OK);
      assertThat(call.bytes).isEqualTo((long) MESSAGES * SIZE);
      assertThat(call.error).isNull();
      assertThat(Loopback.clientStat(client, st -> st.localAddressChanges)).isEqualTo(1);
      int after = localPort(client);
      assertThat(after).as("the client's port after the move").isNotEqualTo(before);
      assertThat(serverSees(server)).isEqualTo(after);
      assertThat(client.connectionInfo().pathChanges()).as("path changes the client counted")
          .isEqualTo(1);
      assertThat(server.completedPathChanges.poll()).as("path changes the server counted")
          .isEqualTo(1L);
      // The connection is the same one: one handshake, and further calls go on it.
      Loopback.Call next = Loopback.echo(client, "test.Move/Next", "still here");
      assertThat(next.messages.poll(10, TimeUnit.SECONDS)).isEqualTo("still here");
      assertThat(server.headers).hasSize(2);
    } finally {
      client.shutdownNow(Status.CANCELLED.withDescription("test over"));
      assertThat(server.stop()).isTrue();
    }
  }

  /** The client's local port, as its connection info says. */
  private static int localPort(UdpClientTransport client) {
    return ((InetSocketAddress) client.connectionInfo().localAddress()).getPort();
  }

  /** The client's port as the server's connection named it when the echo call ended there. */
  private static int serverSees(Loopback.EchoServer server) throws InterruptedException {
    // The server ends the call once the client acknowledged its end, which may be after the
    // client saw the status.
    SocketAddress from = server.completedFrom.poll(10, TimeUnit.SECONDS);
    assertThat(from).as("the server completed the call").isNotNull();
    return ((InetSocketAddress) from).getPort();
  }

  /**
   * One echo call of {@link #MESSAGES} messages, each written once the echo of the one before it
   * is back and checked; once a third are back, {@code move} runs (in the listener, before the
   * next message is written), so the rest of the call must cross the new path.
   */
  private static final class Echoes implements ClientStreamListener {
    final CompletableFuture<Status> status = new CompletableFuture<>();
    volatile long bytes;
    volatile String error;
    private final ClientStream stream;
    private final ThrowingRunnable move;
    private int sent;
    private int received;

    interface ThrowingRunnable {
      void run() throws Exception;
    }

    Echoes(UdpClientTransport client, ThrowingRunnable move) {
      this.move = move;
      this.stream = client.newStream(RequestHeaders.builder("test.Move/Echo").build(), this);
      stream.request(1);
      writeNext();
    }

    private static byte fill(int message) {
      return (byte) (message * 31 + 7);
    }

    private void writeNext() {
      byte[] b = new byte[SIZE];
      Arrays.fill(b, fill(sent));
      stream.writeMessage(ByteBuffer.wrap(b));
      stream.flush();
      if (++sent == MESSAGES) {
        stream.halfClose();
      }
    }

    @Override
    public void onReady() {}

    @Override
    public void onHeaders(Metadata headers) {}

    @Override
    public void onMessage(ByteBuffer message) {
      byte want = fill(received);
      long n = 0;
      while (message.hasRemaining()) {
        if (message.get() != want && error == null) {
          error = "echo " + received + " corrupted";
        }
        n++;
      }
      bytes += n;
      received++;
      if (received == MESSAGES / 3) {
        try {
          move.run();
        } catch (Exception e) {
          error = "the move failed: " + e;
        }
      }
      if (sent < MESSAGES) {
        writeNext();
      }
      stream.request(1);
    }

    @Override
    public void onClose(Status s, Metadata trailers) {
      status.complete(s);
    }
  }
}
