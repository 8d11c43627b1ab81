package dev.tern.samples.mobile;

import dev.tern.rpc.ConnectionInfo;
import dev.tern.rpc.TernChannels;
import dev.tern.rpc.TernTls;
import dev.tern.rpc.spi.SessionStore;
import dev.tern.rpc.spi.SessionStores;
import dev.tern.transport.udp.rpc.UdpTransportOptions;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.DatagramChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The feed sample in one process on loopback (README): the Guice-wired {@link FeedServer} with
 * {@code udp} and {@code okhttp} on one port number, and the app's feed screen ({@link FeedApp})
 * three times: a first start, a restart that resumes with 0-RTT from the state the first one kept,
 * and a start on a network that drops UDP, which falls back to TCP after the head start. Every call
 * prints which transport carried it, why, and how long it took. The demo's certificate (in {@code
 * demo/}) is for loopback only.
 */
public final class FeedDemo {
  private FeedDemo() {}

  /**
   * Runs the three starts.
   *
   * @param args none
   * @throws Exception if the server cannot start
   */
  public static void main(String[] args) throws Exception {
    InetAddress loopback = InetAddress.getByName("127.0.0.1");
    TernTls serverTls;
    try (InputStream cert = resource("localhost-cert.pem"); InputStream key = resource("localhost-key.pem")) {
      serverTls = TernTls.newBuilder().keyManager(cert, key).build();
    }
    TernTls trust;
    try (InputStream cert = resource("localhost-cert.pem")) {
      trust = TernTls.newBuilder().trustManager(cert).build();
    }
    byte[] udpKey = UdpTransportOptions.newServerKey();
    byte[] pin = UdpTransportOptions.publicKeyOf(udpKey);
    Path dir = Files.createTempDirectory("tern-feed-demo");
    int failed = 0;

    int port = freePort(loopback);
    Server server = FeedServer.start(loopback, port, serverTls, udpKey);
    try {
      SessionStore state = SessionStores.file(dir.resolve("app-state"), 64);
      System.out.println("feed server (Guice) on " + server.getListenSockets() + "\n");
      System.out.println("first start of the app:");
      failed += screen("app", port, trust, pin, state);
      System.out.println("\nthe app restarted (its memory and 0-RTT tickets kept in a file):");
      failed += screen("app", port, trust, pin, SessionStores.file(dir.resolve("app-state"), 64));
    } finally {
      server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }

    // A network that drops UDP: the server's UDP port swallows every datagram and answers nothing.
    int blocked = freePort(loopback);
    DatagramChannel hole = DatagramChannel.open().bind(new InetSocketAddress(loopback, blocked));
    Server tcpOnly = FeedServer.start(loopback, blocked, serverTls, udpKey, "okhttp");
    try {
      System.out.println("\na first start on a network that drops UDP:");
      failed += screen("app", blocked, trust, pin, SessionStores.file(dir.resolve("other-state"), 64));
    } finally {
      tcpOnly.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      hole.close();
    }
    System.out.println(failed == 0 ? "\nevery call succeeded" : "\n" + failed + " calls failed");
    if (failed > 0) {
      throw new IllegalStateException(failed + " calls of the feed demo failed");
    }
  }

  private static int screen(String label, int port, TernTls trust, byte[] pin, SessionStore state)
      throws InterruptedException {
    long start = System.nanoTime();
    ManagedChannel channel = FeedClient.keepState(
        FeedClient.builderFor("localhost", port, trust, pin, label), state).build();
    try {
      int failed = new FeedApp(channel, System.out, "  " + label, start).run();
      ConnectionInfo info = TernChannels.connectionInfo(channel);
      System.out.println("  " + label + ": early data accepted: " + (info != null && info.earlyDataAccepted()));
      return failed;
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  private static InputStream resource(String name) {
    InputStream in = FeedDemo.class.getResourceAsStream("/demo/" + name);
    if (in == null) {
      throw new IllegalStateException("demo/" + name + " is not on the class path");
    }
    return in;
  }

  /** A port number free for both UDP and TCP on {@code address}. */
  private static int freePort(InetAddress address) throws java.io.IOException {
    for (int attempt = 0; attempt < 20; attempt++) {
      try (ServerSocket tcp = new ServerSocket(0, 1, address); DatagramChannel udp = DatagramChannel.open()) {
        udp.bind(new InetSocketAddress(address, tcp.getLocalPort()));
        return tcp.getLocalPort();
      } catch (java.net.BindException taken) {
        // that number's UDP port is in use: another
      }
    }
    throw new java.io.IOException("no port number free for both UDP and TCP");
  }
}
