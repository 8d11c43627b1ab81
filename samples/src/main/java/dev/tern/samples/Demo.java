package dev.tern.samples;

import dev.tern.rpc.ConnectionInfo;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernChannels;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.inprocess.InProcessAddress;
import dev.tern.rpc.metrics.TernMetrics;
import dev.tern.rpc.micrometer.TernMeterBinder;
import dev.tern.rpc.spi.TransportProvider;
import dev.tern.samples.hello.GreeterService;
import dev.tern.samples.hello.proto.GreeterGrpc;
import dev.tern.samples.hello.proto.HelloReply;
import dev.tern.samples.hello.proto.HelloRequest;
import dev.tern.transport.udp.rpc.UdpTransportOptions;
import dev.tern.transport.udp.rpc.UdpTransportProvider;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;

/**
 * Starts a greeter server on every transport on the class path and runs the client over each,
 * printing the transport, the agreed protocol version and the latency it saw. TCP and QUIC run
 * over TLS with a throw-away self-signed certificate, Tern's UDP protocol over its Noise handshake
 * with a throw-away server key the client pins; all on 127.0.0.1. Then the servers' and clients'
 * counters per transport, as Micrometer meters ({@link MetricsTable}).
 */
public final class Demo {
  private static final int WARM_CALLS = 200;
  private static final int STREAMED = 100;

  private Demo() {}

  /** Runs the demo; no arguments. */
  public static void main(String[] args) throws Exception {
    SelfSignedCertificate certificate = SelfSignedCertificate.generate();
    List<TransportProvider> providers = new ArrayList<>();
    ServiceLoader.load(TransportProvider.class).forEach(providers::add);
    providers.sort((a, b) -> a.name().compareTo(b.name()));
    // Every server and channel counts into one registry, shown as Micrometer meters.
    TernMetrics metrics = TernMetrics.create();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    TernMeterBinder.bind(metrics, registry);

    System.out.printf("%-10s %-8s %-6s %14s %12s %12s %16s %10s%n", "transport", "version", "tls",
        "first call ms", "p50 us", "p99 us", STREAMED + " streamed ms", "srtt us");
    int failures = 0;
    for (TransportProvider provider : providers) {
      if (!provider.isAvailable()) {
        System.out.printf("%-10s unavailable: %s%n", provider.name(), provider.unavailableReason());
        continue;
      }
      try {
        run(provider.name(), certificate, metrics);
      } catch (Exception e) {
        failures++;
        System.out.printf("%-10s FAILED: %s%n", provider.name(), e);
      }
    }
    System.out.println();
    try {
      transportChoice(certificate);
      advertisedTransport(certificate);
    } catch (Exception e) {
      failures++;
      System.out.printf("transport choice FAILED: %s%n", e);
    }
    System.out.println();
    MetricsTable.print(registry, System.out);
    if (failures > 0) {
      throw new IllegalStateException(failures + " transport(s) failed");
    }
  }

  /**
   * A channel that names {@code udp} and {@code tcp} races them to a server offering both on one
   * port number: which transport each call used, and why ({@link TernChannels#selectionReason}).
   * Then the same with the server's UDP port black-holed (a socket that answers nothing, as a
   * network that drops UDP), twice with one memory: the first call falls back to TCP after the
   * head start, the next one leaves udp out as broken.
   */
  private static void transportChoice(SelfSignedCertificate certificate) throws Exception {
    System.out.println("transport choice (a channel naming udp, tcp):");
    byte[] udpKey = UdpTransportOptions.newServerKey();
    java.net.InetAddress loopback = java.net.InetAddress.getByName("127.0.0.1");
    for (boolean blocked : new boolean[] {false, true}) {
      TernServerBuilder sb = TernServerBuilder.create().addService(new GreeterService())
          .transportOption(UdpTransportOptions.SERVER_STATIC_KEY, udpKey).tls(certificate.server());
      java.nio.channels.DatagramChannel hole = null;
      int port;
      Server server;
      if (blocked) {
        server = sb.listen("tcp", new InetSocketAddress(loopback, 0)).build().start();
        port = ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
        hole = java.nio.channels.DatagramChannel.open().bind(new InetSocketAddress(loopback, port));
      } else {
        server = sb.listen("tcp", new InetSocketAddress(loopback, 0)).build().start();
        port = ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        server = TernServerBuilder.create().addService(new GreeterService())
            .transportOption(UdpTransportOptions.SERVER_STATIC_KEY, udpKey).tls(certificate.server())
            .listen("tcp", new InetSocketAddress(loopback, port)).listen("udp", new InetSocketAddress(loopback, port))
            .build().start();
      }
      // The memory writes to its store on every change that matters: the demo waits on that.
      java.util.concurrent.Semaphore memoryChanged = new java.util.concurrent.Semaphore(0);
      dev.tern.rpc.spi.SessionStore inner = dev.tern.rpc.spi.SessionStores.inMemory(16);
      dev.tern.rpc.spi.SessionStore store = new dev.tern.rpc.spi.ForwardingSessionStore(inner) {
        @Override
        public void put(String server, String kind, byte[] value, long expiresAtMillis) {
          super.put(server, kind, value, expiresAtMillis);
          memoryChanged.release();
        }

        @Override
        public void remove(String server, String kind) {
          super.remove(server, kind);
          memoryChanged.release();
        }
      };
      dev.tern.rpc.TransportMemory memory = dev.tern.rpc.TransportMemory.builder().sessionStore(store).build();
      List<ManagedChannel> channels = new ArrayList<>();
      try {
        for (int attempt = 1; attempt <= (blocked ? 2 : 1); attempt++) {
          // A 2 s handshake timeout: the black-holed udp racer gives up, and is marked broken, soon.
          ManagedChannel channel = TernChannelBuilder.forAddress("localhost", port).transports("udp", "tcp")
              .tls(certificate.client()).transportMemory(memory).handshakeTimeout(2, TimeUnit.SECONDS)
              .transportOption(UdpTransportOptions.PINNED_SERVER_KEY, UdpTransportOptions.publicKeyOf(udpKey)).build();
          channels.add(channel);
          long start = System.nanoTime();
          GreeterGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS)
              .sayHello(HelloRequest.newBuilder().setName("choice").build());
          System.out.printf("  %-20s %5.0f ms over %-4s why: %s%n",
              blocked ? "UDP blocked, call " + attempt + ":" : "both offered:", (System.nanoTime() - start) / 1e6,
              TernChannels.selectedTransport(channel), TernChannels.selectionReason(channel));
          if (blocked && attempt == 1) {
            // The first channel stays open while its udp racer waits out its handshake timeout.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!memory.isBroken(channel.authority(), "udp")
                && memoryChanged.tryAcquire(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
              // a change that was not the mark: wait for the next one
            }
          }
        }
      } finally {
        for (ManagedChannel c : channels) {
          c.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        if (hole != null) {
          hole.close();
        }
      }
    }
  }

  /**
   * A channel that names no transport and holds no {@code udp} key talks TCP to a server that also
   * listens with {@code udp} on another port; the server's answer advertises it ({@code alt-svc},
   * with its key), and the next channel with the same memory connects over {@code udp} there.
   */
  private static void advertisedTransport(SelfSignedCertificate certificate) throws Exception {
    System.out.println("learning from the server (a channel naming no transport, with no udp key):");
    java.net.InetAddress loopback = java.net.InetAddress.getByName("127.0.0.1");
    Server server = TernServerBuilder.create().addService(new GreeterService()).tls(certificate.server())
        .transportOption(UdpTransportOptions.SERVER_STATIC_KEY, UdpTransportOptions.newServerKey())
        .listen("tcp", new InetSocketAddress(loopback, 0)).listen("udp", new InetSocketAddress(loopback, 0))
        .build().start();
    int port = ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
    dev.tern.rpc.TransportMemory memory = dev.tern.rpc.TransportMemory.builder().build();
    try {
      for (String when : new String[] {"first contact:", "next connection:"}) {
        ManagedChannel channel = TernChannelBuilder.forAddress("localhost", port).tls(certificate.client())
            .transportMemory(memory).build();
        try {
          long start = System.nanoTime();
          GreeterGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS)
              .sayHello(HelloRequest.newBuilder().setName("advertised").build());
          System.out.printf("  %-20s %5.0f ms over %-4s why: %s%n", when, (System.nanoTime() - start) / 1e6,
              TernChannels.selectedTransport(channel), TernChannels.selectionReason(channel));
        } finally {
          channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
      }
    } finally {
      server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  private static void run(String transport, SelfSignedCertificate certificate, TernMetrics metrics)
      throws Exception {
    boolean inProcess = transport.equals("inprocess");
    // Tern's own UDP protocol authenticates the server by a static key the client pins (its
    // Noise handshake, docs/udp-crypto.md) instead of a certificate.
    boolean udp = transport.equals(UdpTransportProvider.NAME);
    byte[] udpKey = udp ? UdpTransportOptions.newServerKey() : null;
    SocketAddress address = inProcess ? new InProcessAddress("demo-" + System.nanoTime())
        : new InetSocketAddress("127.0.0.1", 0);
    TernServerBuilder serverBuilder = TernServerBuilder.create().listen(transport, address)
        .addService(new GreeterService()).metrics(metrics, "demo-server");
    if (udp) {
      serverBuilder.transportOption(UdpTransportOptions.SERVER_STATIC_KEY, udpKey);
    } else if (!inProcess) {
      serverBuilder.tls(certificate.server());
    }
    Server server = serverBuilder.build().start();
    SocketAddress bound = server.getListenSockets().get(0);
    TernChannelBuilder channelBuilder = inProcess ? TernChannelBuilder.forAddress(bound)
        : TernChannelBuilder.forAddress("localhost", ((InetSocketAddress) bound).getPort());
    channelBuilder.transports(transport).metrics(metrics, "demo-channel");
    if (inProcess) {
      channelBuilder.usePlaintext();
    } else if (udp) {
      channelBuilder.transportOption(UdpTransportOptions.PINNED_SERVER_KEY, UdpTransportOptions.publicKeyOf(udpKey));
    } else {
      channelBuilder.tls(certificate.client());
    }
    ManagedChannel channel = channelBuilder.build();
    try {
      GreeterGrpc.GreeterBlockingStub greeter = GreeterGrpc.newBlockingStub(channel);
      HelloRequest request = HelloRequest.newBuilder().setName(transport).setTimes(STREAMED).build();

      long start = System.nanoTime();
      HelloReply first = greeter.withDeadlineAfter(10, TimeUnit.SECONDS).sayHello(request);
      long firstNs = System.nanoTime() - start;
      if (!first.getMessage().equals("Hello, " + transport + "!")) {
        throw new IllegalStateException("unexpected reply: " + first.getMessage());
      }

      long[] latencies = new long[WARM_CALLS];
      for (int i = 0; i < WARM_CALLS; i++) {
        long t0 = System.nanoTime();
        greeter.withDeadlineAfter(10, TimeUnit.SECONDS).sayHello(request);
        latencies[i] = System.nanoTime() - t0;
      }
      Arrays.sort(latencies);

      long streamStart = System.nanoTime();
      int received = 0;
      Iterator<HelloReply> replies = greeter.withDeadlineAfter(10, TimeUnit.SECONDS).sayHelloStream(request);
      while (replies.hasNext()) {
        replies.next();
        received++;
      }
      long streamNs = System.nanoTime() - streamStart;
      if (received != STREAMED) {
        throw new IllegalStateException("streamed " + received + " of " + STREAMED);
      }

      ConnectionInfo info = TernChannels.connectionInfo(channel);
      System.out.printf("%-10s %-8d %-6s %14.1f %12d %12d %16.1f %10s%n", info.transport(), info.protocolVersion(),
          inProcess ? "no" : udp ? "noise" : "yes", firstNs / 1e6, latencies[WARM_CALLS / 2] / 1000,
          latencies[WARM_CALLS * 99 / 100] / 1000, streamNs / 1e6,
          info.smoothedRttNanos() < 0 ? "n/a" : Long.toString(info.smoothedRttNanos() / 1000));
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
