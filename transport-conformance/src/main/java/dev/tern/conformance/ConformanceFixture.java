package dev.tern.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.spi.ClientStream;
import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.RequestHeaders;
import dev.tern.rpc.spi.ServerTransport;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.rpc.spi.TransportProvider;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * The factories a transport's conformance test supplies, and the plumbing every case shares:
 * starting servers and clients, waiting with a timeout, and, after each case, shutting everything
 * down and failing on threading-rule violations, transports that never terminate, and leaked
 * buffers.
 */
public abstract class ConformanceFixture {
  /** The flow-control window the suite sets on both sides: deliberately not a power of two. */
  protected static final int WINDOW = 65_535 + 1000;

  /** The transport under test. Called once per case. */
  protected abstract TransportProvider transportProvider();

  /** A fresh address to listen on: {@code 127.0.0.1:0} for socket transports. */
  protected abstract SocketAddress newServerAddress();

  /** Options for server transports (the suite adds its {@link #WINDOW} unless set). */
  protected TransportOptions serverOptions() {
    return TransportOptions.defaults();
  }

  /** Options for client transports (the suite adds its {@link #WINDOW} unless set). */
  protected TransportOptions clientOptions() {
    return TransportOptions.defaults();
  }

  /** How long to wait for something that must happen. */
  protected Duration timeout() {
    return Duration.ofSeconds(10);
  }

  /** How long to watch for something that must not happen. */
  protected Duration quietPeriod() {
    return Duration.ofMillis(300);
  }

  /** Whether the server sees the priority the client set (false: it must only not break calls). */
  protected boolean carriesPriority() {
    return false;
  }

  /** Whether the server sees the early-data permission the client set. */
  protected boolean carriesEarlyDataFlag() {
    return false;
  }

  /** Threads the transport may keep after everything shut down (a shared event loop, say). */
  protected boolean isAllowedThread(Thread thread) {
    return false;
  }

  /** The authority a client uses for {@code address}. */
  protected String authorityFor(SocketAddress address) {
    if (address instanceof InetSocketAddress) {
      InetSocketAddress a = (InetSocketAddress) address;
      return a.getHostString() + ":" + a.getPort();
    }
    return address.toString();
  }

  /** Adds transport-specific settings (TLS, say) to the end-to-end cases' server. */
  protected TernServerBuilder configureServer(TernServerBuilder builder) {
    return builder;
  }

  /** Adds transport-specific settings to the end-to-end cases' channel; plaintext by default. */
  protected TernChannelBuilder configureChannel(TernChannelBuilder builder) {
    return builder.usePlaintext();
  }

  /** The provider of this case. */
  protected TransportProvider provider;
  /** Threading-rule violations seen by the recorders. */
  protected final List<String> violations = CallbackChecker.newViolationList();
  private final List<Started> servers = new ArrayList<>();
  private final List<Connected> clients = new ArrayList<>();
  private final List<ManagedChannel> channels = new ArrayList<>();
  private final List<Server> grpcServers = new ArrayList<>();

  @BeforeAll
  static void installLeakDetection() {
    LeakDetection.install();
  }

  @BeforeEach
  void createProvider() {
    LeakDetection.drain();
    provider = transportProvider();
  }

  @AfterEach
  void shutDownAndCheck() throws Exception {
    List<String> problems = new ArrayList<>();
    Status over = Status.UNAVAILABLE.withDescription("conformance case over");
    for (ManagedChannel c : channels) {
      c.shutdownNow();
    }
    for (Server s : grpcServers) {
      s.shutdownNow();
    }
    for (Connected c : clients) {
      c.transport.shutdownNow(over);
    }
    for (Started s : servers) {
      s.transport.shutdownNow(over);
    }
    for (ManagedChannel c : channels) {
      if (!c.awaitTermination(timeout().toMillis(), TimeUnit.MILLISECONDS)) {
        problems.add("channel did not terminate: " + c);
      }
    }
    for (Server s : grpcServers) {
      if (!s.awaitTermination(timeout().toMillis(), TimeUnit.MILLISECONDS)) {
        problems.add("server did not terminate: " + s);
      }
    }
    for (Connected c : clients) {
      if (!done(c.recorder.terminated)) {
        problems.add("client transport never reported transportTerminated: " + c.transport);
      }
    }
    for (Started s : servers) {
      if (!done(s.recorder.terminated)) {
        problems.add("server transport never reported serverTerminated: " + s.transport);
      }
    }
    problems.addAll(violations);
    LeakDetection.reported().forEach(l -> problems.add("leaked buffer: " + l));
    assertThat(problems).as("problems found after the case").isEmpty();
  }

  private boolean done(CompletableFuture<?> f) throws InterruptedException {
    try {
      f.get(timeout().toMillis(), TimeUnit.MILLISECONDS);
      return true;
    } catch (TimeoutException | ExecutionException e) {
      return false;
    }
  }

  /** A started server transport and its recorder. */
  protected static final class Started {
    /** The transport. */
    public final ServerTransport transport;
    /** Its listener. */
    public final ServerTransportRecorder recorder;

    Started(ServerTransport transport, ServerTransportRecorder recorder) {
      this.transport = transport;
      this.recorder = recorder;
    }

    /** Where it listens. */
    public SocketAddress address() {
      return transport.listenAddress();
    }
  }

  /** A started client transport and its recorder. */
  protected static final class Connected {
    /** The transport. */
    public final ClientTransport transport;
    /** Its listener. */
    public final ClientTransportRecorder recorder;

    Connected(ClientTransport transport, ClientTransportRecorder recorder) {
      this.transport = transport;
      this.recorder = recorder;
    }
  }

  /** A client stream and its recorder. */
  protected static final class Call {
    /** The stream. */
    public final ClientStream stream;
    /** Its listener. */
    public final ClientStreamRecorder recorder;

    Call(ClientStream stream, ClientStreamRecorder recorder) {
      this.stream = stream;
      this.recorder = recorder;
    }
  }

  /** Options with the suite's window added unless the subclass set one. */
  protected static TransportOptions withWindow(TransportOptions o) {
    return o.isSet(TransportOptions.FLOW_CONTROL_WINDOW) ? o : o.with(TransportOptions.FLOW_CONTROL_WINDOW, WINDOW);
  }

  /** Starts a server transport with {@link #serverOptions()}. */
  protected Started startServer() throws IOException {
    return startServer(serverOptions());
  }

  /** Starts a server transport with {@code options}. */
  protected Started startServer(TransportOptions options) throws IOException {
    ServerTransport t = provider.newServerTransport(newServerAddress(), withWindow(options));
    ServerTransportRecorder r = new ServerTransportRecorder(violations);
    t.start(r);
    Started s = new Started(t, r);
    servers.add(s);
    return s;
  }

  /** Starts a client transport to {@code address} without waiting for it to be ready. */
  protected Connected connect(SocketAddress address, TransportOptions options) {
    ClientTransport t = provider.newClientTransport(address, authorityFor(address), withWindow(options));
    ClientTransportRecorder r = new ClientTransportRecorder(violations);
    Connected c = new Connected(t, r);
    clients.add(c);
    t.start(r);
    return c;
  }

  /** A ready client transport to {@code server}, with {@link #clientOptions()}. */
  protected Connected connectReady(Started server) {
    Connected c = connect(server.address(), clientOptions());
    await(c.recorder.ready, "transportReady");
    return c;
  }

  /** Opens a stream for {@code headers}. */
  protected Call newCall(Connected client, RequestHeaders headers) {
    ClientStreamRecorder r = new ClientStreamRecorder(violations);
    client.recorder.track(r);
    return new Call(client.transport.newStream(headers, r), r);
  }

  /** Request headers for {@code conformance.Test/<method>}. */
  protected RequestHeaders.Builder headers(String method, Started server) {
    return RequestHeaders.builder("conformance.Test/" + method).authority(authorityFor(server.address()));
  }

  /** The next stream {@code server} accepted; fails the case if none arrives in time. */
  protected ServerStreamRecorder acceptStream(Started server) throws InterruptedException {
    ServerStreamRecorder s = server.recorder.nextStream(timeout());
    if (s == null) {
      fail("the server transport accepted no stream within " + timeout());
    }
    return s;
  }

  /** Waits for {@code future}; fails the case naming {@code what} on timeout. */
  protected <T> T await(CompletableFuture<T> future, String what) {
    try {
      return future.get(timeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      return fail("timed out after " + timeout() + " waiting for " + what);
    } catch (ExecutionException e) {
      return fail(what + " failed", e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return fail("interrupted waiting for " + what);
    }
  }

  /** Tracks a channel built by a case so it is shut down afterwards. */
  protected ManagedChannel track(ManagedChannel channel) {
    channels.add(channel);
    return channel;
  }

  /** Tracks a server built by a case so it is shut down afterwards. */
  protected Server track(Server server) {
    grpcServers.add(server);
    return server;
  }

  /** UTF-8 bytes of {@code s} in a new buffer. */
  protected static ByteBuffer utf8(String s) {
    return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
  }

  /** A buffer's remaining bytes as UTF-8. */
  protected static String utf8(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return new String(out, StandardCharsets.UTF_8);
  }

  /** {@code size} bytes of a repeatable pattern that does not compress to nothing. */
  protected static ByteBuffer pattern(int size, int seed) {
    byte[] b = new byte[size];
    long x = seed * 0x9E3779B97F4A7C15L + 1;
    for (int i = 0; i < size; i++) {
      x ^= x << 13;
      x ^= x >>> 7;
      x ^= x << 17;
      b[i] = (byte) x;
    }
    return ByteBuffer.wrap(b);
  }
}
