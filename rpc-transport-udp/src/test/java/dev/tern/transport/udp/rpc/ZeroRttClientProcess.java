package dev.tern.transport.udp.rpc;

import dev.tern.conformance.PeerProcess;
import dev.tern.netlab.emu.NetlabEmulator;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.spi.SessionStores;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.ManagedChannel;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * A client application as a process of its own: it keeps its tickets in a session-store file,
 * makes one idempotent call over {@code udp} (the server's key pinned), waits for the ticket the
 * connection earns, prints {@code RESULT early=<whether the call went in early data>
 * tickets=<tickets stored>} and exits.
 */
final class ZeroRttClientProcess {
  private ZeroRttClientProcess() {}

  /** Runs the client as a new process against {@code port}; its RESULT line, without "RESULT ". */
  static String run(int port, Path sessions) throws Exception {
    String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> cmd = NetlabEmulator.javaCommand(cp, ZeroRttClientProcess.class.getName(),
        Integer.toString(port), sessions.toString(),
        java.util.HexFormat.of().formatHex(Loopback.PIN)); // the key is drawn per process
    try (PeerProcess client = PeerProcess.start(new ProcessBuilder(cmd))) {
      return client.expect("RESULT ", 60).substring("RESULT ".length());
    }
  }

  /** Arguments: the server's port on 127.0.0.1, the session-store file, the pin in hex. */
  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    byte[] pin = java.util.HexFormat.of().parseHex(args[2]);
    // Warm-up calls on channels of their own, with their own (memory) store, a full handshake
    // and a resumption, load the classes of both paths first: a resuming connection holds its
    // first flight only 5 ms for the early calls, and on loopback the handshake completes within
    // that, so a cold process that takes longer to open its call sends it after the handshake.
    UdpZeroRttTest.CountingStore warm = new UdpZeroRttTest.CountingStore();
    callAndAwaitTicket(channel(port, pin, warm), warm);
    callAndAwaitTicket(channel(port, pin, warm), warm);
    UdpZeroRttTest.CountingStore store =
        new UdpZeroRttTest.CountingStore(SessionStores.file(Paths.get(args[1]), 64));
    ManagedChannel channel = channel(port, pin, store);
    System.out.println("RESULT " + callAndAwaitTicket(channel, store));
  }

  /** One idempotent call, then up to 10 s for the ticket the connection earns; shuts down. */
  private static String callAndAwaitTicket(ManagedChannel channel,
      UdpZeroRttTest.CountingStore store) throws Exception {
    int before = store.added.get();
    try {
      String answer = UdpZeroRttTest.call(channel, UdpZeroRttTest.IDEMPOTENT);
      try {
        // The ticket follows the handshake (NEW_TICKET).
        Awaitility.await("the connection's ticket").atMost(10, TimeUnit.SECONDS)
            .pollInterval(10, TimeUnit.MILLISECONDS).until(() -> store.added.get() > before);
      } catch (ConditionTimeoutException none) {
        // reported below as tickets=0
      }
      return answer + " tickets=" + (store.added.get() - before);
    } finally {
      channel.shutdownNow();
      channel.awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  private static ManagedChannel channel(int port, byte[] pin, UdpZeroRttTest.CountingStore store) {
    return TernChannelBuilder.forAddress(new InetSocketAddress("127.0.0.1", port))
        .addTransportProvider(new UdpTransportProvider()).transports(UdpTransportProvider.NAME)
        .usePlaintext().transportOption(UdpTransportOptions.PINNED_SERVER_KEY, pin)
        .transportOption(TransportOptions.SESSION_STORE, store).build();
  }
}
