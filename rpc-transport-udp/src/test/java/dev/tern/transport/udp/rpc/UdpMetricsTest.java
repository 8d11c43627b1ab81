package dev.tern.transport.udp.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.TernServerCalls;
import dev.tern.rpc.metrics.TernMetrics;
import dev.tern.rpc.metrics.TransportMetrics;
import dev.tern.rpc.spi.TransportEvents;
import dev.tern.transport.udp.nio.UdpServerEndpoint;
import dev.tern.transport.udp.packet.Versions;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the {@code udp} transport reports to the metrics ({@link TernMetrics}), with a real Tern
 * server and channel over loopback sockets: bytes both ways, matching what the other side read;
 * each kind of datagram the server drops, under its own reason; INITIALs beyond {@code
 * maxConnections}; calls refused by a drained connection; streams the peer reset; and the packets
 * declared lost on a lossy path, none on a clean one. Each fault is checked to move its own counter
 * and not the others.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UdpMetricsTest {
  private static final String SERVER = "udp-server";
  private static final String CLIENT = "udp-channel";

  private static final MethodDescriptor.Marshaller<String> UTF8 = new MethodDescriptor.Marshaller<>() {
    @Override
    public InputStream stream(String value) {
      return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String parse(InputStream stream) {
      return new String(readAll(stream), StandardCharsets.UTF_8);
    }
  };

  private static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
    @Override
    public InputStream stream(byte[] value) {
      return new ByteArrayInputStream(value);
    }

    @Override
    public byte[] parse(InputStream stream) {
      return readAll(stream);
    }
  };

  /** Answers its request. */
  private static final MethodDescriptor<String, String> ECHO = unary("Echo", UTF8);
  /** Answers as many bytes as its request names. */
  private static final MethodDescriptor<String, byte[]> DOWNLOAD = unary("Download", BYTES);
  /** Answers the packets the server's connection has declared lost (its own counter). */
  private static final MethodDescriptor<String, String> LOST = unary("Lost", UTF8);
  /** Never answers. */
  private static final MethodDescriptor<String, String> HANG = unary("Hang", UTF8);

  private final List<Server> servers = new ArrayList<>();
  private final List<ManagedChannel> channels = new ArrayList<>();
  private final List<AutoCloseable> closeables = new ArrayList<>();
  /** Completed as each {@code Hang} call reaches its handler, and as the server cancels it. */
  private final List<CompletableFuture<Void>> hangsStarted = new ArrayList<>();
  private final List<CompletableFuture<Void>> hangsCancelled = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    for (ManagedChannel c : channels) {
      c.shutdownNow();
      assertThat(c.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    for (AutoCloseable c : closeables) {
      c.close();
    }
    for (Server s : servers) {
      s.shutdownNow();
      assertThat(s.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void unaryCallsCountBytesBothWaysAndNothingElse() throws Exception {
    TernMetrics metrics = TernMetrics.create();
    Server server = server(metrics, b -> b);
    long kernelDropsBefore = kernelUdpDrops(port(server));
    ManagedChannel channel = channel(metrics, CLIENT, port(server));
    for (int i = 0; i < 10; i++) {
      assertThat(call(channel, ECHO, "hello " + i)).isEqualTo("hello " + i);
    }
    TransportMetrics s = metrics.transport(TernMetrics.Side.SERVER, SERVER, UdpTransportProvider.NAME);
    TransportMetrics c = metrics.transport(TernMetrics.Side.CLIENT, CLIENT, UdpTransportProvider.NAME);
    await("the server counted its ten calls", () -> s.callsFinished(Status.Code.OK) == 10);
    assertThat(s.callsStarted()).isEqualTo(10);
    assertThat(c.callsStarted()).isEqualTo(10);
    assertThat(c.callsFinished(Status.Code.OK)).isEqualTo(10);

    // Once the last acknowledgements are in, what one side sent the other read, to the byte
    // (unless the kernel dropped a datagram on a full socket buffer meanwhile).
    BooleanSupplier balanced = () -> c.bytesSent() == s.bytesReceived() && s.bytesSent() == c.bytesReceived();
    if (!eventually(balanced)) {
      assertThat(kernelUdpDrops(port(server))).as("bytes lost on loopback (client sent %d, server read %d; server sent %d,"
          + " client read %d) without a kernel drop", c.bytesSent(), s.bytesReceived(), s.bytesSent(),
          c.bytesReceived()).isGreaterThan(kernelDropsBefore);
      assertThat(s.bytesReceived()).isLessThanOrEqualTo(c.bytesSent());
      assertThat(c.bytesReceived()).isLessThanOrEqualTo(s.bytesSent());
    }
    // The handshake's INITIALs alone are 1200 bytes each way at least (RFC 9000 §14.1).
    assertThat(c.bytesSent()).isGreaterThan(1200 + 10 * "hello 0".length());
    assertThat(s.bytesSent()).isGreaterThan(1200 + 10 * "hello 0".length());

    assertThat(s.refusals()).as("server refusals").isEmpty();
    assertThat(c.refusals()).as("client refusals").isEmpty();
    assertThat(s.streamsReset()).isZero();
    assertThat(c.streamsReset()).isZero();
    assertCleanPath(kernelDropsBefore, kernelUdpDrops(port(server)), s, c);
    // No Retry and no 0-RTT on udp.
    assertThat(s.retriesSent()).isZero();
    assertThat(s.earlyDataAccepted() + s.earlyDataRejected() + c.earlyDataAccepted()
        + c.earlyDataRejected()).isZero();
  }

  @Test
  void eachKindOfGarbageDatagramIsRefusedUnderItsOwnReason() throws Exception {
    TernMetrics metrics = TernMetrics.create();
    Server server = server(metrics, b -> b);
    ManagedChannel channel = channel(metrics, CLIENT, port(server));
    assertThat(call(channel, ECHO, "before")).isEqualTo("before");
    TransportMetrics s = metrics.transport(TernMetrics.Side.SERVER, SERVER, UdpTransportProvider.NAME);
    TransportMetrics c = metrics.transport(TernMetrics.Side.CLIENT, CLIENT, UdpTransportProvider.NAME);
    assertThat(s.refusals()).isEmpty();
    long receivedBefore = s.bytesReceived();

    Random random = new Random(7);
    long garbageBytes = 0;
    try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
      InetSocketAddress to = new InetSocketAddress(InetAddress.getLoopbackAddress(), port(server));
      for (int i = 0; i < 10; i++) {
        // A short header without the fixed bit (docs/protocol.md §2.2): no packet of ours.
        byte[] d = bytes(random, 60);
        d[0] = 0x00;
        garbageBytes += send(socket, to, d);
        // An INITIAL of the server's version that does not open with its connection ID's keys
        // (forged or corrupt, RFC 9001 §5.2): dropped before any state is kept.
        garbageBytes += send(socket, to, initial(random, Versions.V2, 1200));
        // A 1-RTT packet for a connection ID the server never issued.
        byte[] u = bytes(random, 60);
        u[0] = 0x40;
        garbageBytes += send(socket, to, u);
      }
      for (int i = 0; i < 3; i++) {
        // A client's first INITIAL of a version the server does not speak: Version Negotiation.
        garbageBytes += send(socket, to, initial(random, 0x1a2a3a4a, 1200));
      }
    }
    await(() -> "every datagram refused: " + s.refusals(), () -> s.refusals(TransportEvents.MALFORMED) == 20
        && s.refusals(TransportEvents.UNKNOWN_CONNECTION) == 10
        && s.refusals(UdpServerEndpoint.UNSUPPORTED_VERSION) == 3);
    assertThat(s.refusals()).as("no other reason moved").containsOnlyKeys(TransportEvents.MALFORMED,
        TransportEvents.UNKNOWN_CONNECTION, UdpServerEndpoint.UNSUPPORTED_VERSION);
    assertThat(s.bytesReceived() - receivedBefore).isGreaterThanOrEqualTo(garbageBytes);

    // The server still serves, on the connection it had and on a new one.
    assertThat(call(channel, ECHO, "after")).isEqualTo("after");
    ManagedChannel second = channel(metrics, "second", port(server));
    assertThat(call(second, ECHO, "new")).isEqualTo("new");
    assertThat(s.refusals()).containsExactlyInAnyOrderEntriesOf(Map.of(TransportEvents.MALFORMED, 20L,
        TransportEvents.UNKNOWN_CONNECTION, 10L, UdpServerEndpoint.UNSUPPORTED_VERSION, 3L));
    assertThat(s.streamsReset() + c.streamsReset()).isZero();
    assertThat(c.refusals()).isEmpty();
  }

  @Test
  void initialsBeyondMaxConnectionsAreRefusedAndTheConnectionInPlaceServes() throws Exception {
    TernMetrics metrics = TernMetrics.create();
    Server server = server(metrics, b -> b.maxConnections(1));
    ManagedChannel first = channel(metrics, CLIENT, port(server));
    assertThat(call(first, ECHO, "one")).isEqualTo("one");
    TransportMetrics s = metrics.transport(TernMetrics.Side.SERVER, SERVER, UdpTransportProvider.NAME);
    assertThat(s.refusals()).isEmpty();

    ManagedChannel second = channel(metrics, "second", port(server));
    assertThatThrownBy(() -> call(second, ECHO, "two", 1_500)).isInstanceOf(StatusRuntimeException.class);
    TransportMetrics c2 = metrics.transport(TernMetrics.Side.CLIENT, "second", UdpTransportProvider.NAME);
    await("INITIALs refused for the limit", () -> s.refusals(TransportEvents.CONNECTION_LIMIT) > 0);
    long refused = s.refusals(TransportEvents.CONNECTION_LIMIT);
    // Each refused datagram was one of the second client's INITIALs, 1200 bytes at least.
    assertThat(refused).isLessThanOrEqualTo(c2.bytesSent() / 1200);
    assertThat(s.refusals()).containsOnlyKeys(TransportEvents.CONNECTION_LIMIT);
    assertThat(s.connectionsOpened()).isEqualTo(1);

    // The connection in place is unharmed.
    assertThat(call(first, ECHO, "three")).isEqualTo("three");
    await("the server counted both calls", () -> s.callsFinished(Status.Code.OK) == 2);
  }

  @Test
  void aClientCancellingACallResetsOneStreamOnTheServer() throws Exception {
    TernMetrics metrics = TernMetrics.create();
    Server server = server(metrics, b -> b);
    ManagedChannel channel = channel(metrics, CLIENT, port(server));
    assertThat(call(channel, ECHO, "warm-up")).isEqualTo("warm-up");
    TransportMetrics s = metrics.transport(TernMetrics.Side.SERVER, SERVER, UdpTransportProvider.NAME);
    TransportMetrics c = metrics.transport(TernMetrics.Side.CLIENT, CLIENT, UdpTransportProvider.NAME);

    // Half-closed, then cancelled: the client's STOP_SENDING alone reaches the server.
    ClientCall<String, String> halfClosed = startHang(channel, true);
    hangsStarted.get(0).get(10, TimeUnit.SECONDS);
    assertThat(s.streamsReset()).isZero();
    halfClosed.cancel("enough", null);
    hangsCancelled.get(0).get(10, TimeUnit.SECONDS);
    await("the server counted the reset stream", () -> s.streamsReset() == 1);

    // Cancelled while still sending: RESET_STREAM and STOP_SENDING both come, one stream reset.
    ClientCall<String, String> open = startHang(channel, false);
    hangsStarted.get(1).get(10, TimeUnit.SECONDS);
    open.cancel("enough", null);
    hangsCancelled.get(1).get(10, TimeUnit.SECONDS);
    await("the server counted the second reset stream", () -> s.streamsReset() == 2);
    await("the server counted both cancelled calls", () -> s.callsFinished(Status.Code.CANCELLED) == 2);

    assertThat(call(channel, ECHO, "after")).isEqualTo("after");
    assertThat(s.streamsReset()).isEqualTo(2);
    assertThat(c.streamsReset()).as("the server reset no stream of the client's").isZero();
    assertThat(s.refusals()).isEmpty();
  }

  @Test
  void aCallRefusedByADrainedConnectionIsCountedOnBothSides() throws Exception {
    TernMetrics metrics = TernMetrics.create();
    Server server = server(metrics, b -> b.maxConnectionAge(400, TimeUnit.MILLISECONDS));
    ManagedChannel channel = channel(metrics, CLIENT, port(server));
    TransportMetrics s = metrics.transport(TernMetrics.Side.SERVER, SERVER, UdpTransportProvider.NAME);
    TransportMetrics c = metrics.transport(TernMetrics.Side.CLIENT, CLIENT, UdpTransportProvider.NAME);
    // A call that stays open keeps the connection past its age: drained, not closed.
    ClientCall<String, String> open = startHang(channel, true);
    hangsStarted.get(0).get(10, TimeUnit.SECONDS);
    Thread.sleep(800);
    // The drained connection refuses the next call unprocessed (RESET_STREAM 0x3, docs/protocol.md
    // §10.5); the channel sends it again on a new connection, where it succeeds.
    assertThat(call(channel, ECHO, "late")).isEqualTo("late");
    assertThat(s.refusals()).isEqualTo(Map.of(TransportEvents.SHUTTING_DOWN, 1L));
    await("the client counted the stream the server reset", () -> c.streamsReset() == 1);
    assertThat(s.streamsReset()).isZero();
    assertThat(s.connectionsOpened()).isEqualTo(2);
    assertThat(c.refusals()).isEmpty();
    open.cancel("enough", null);
    hangsCancelled.get(0).get(10, TimeUnit.SECONDS);
    assertThat(c.streamsReset()).isEqualTo(1);
  }

  @Test
  void aLossyPathMakesTheSenderRetransmitAndACleanOneDoesNot() throws Exception {
    TernMetrics metrics = TernMetrics.create();
    Server server = server(metrics, b -> b);
    TransportMetrics s = metrics.transport(TernMetrics.Side.SERVER, SERVER, UdpTransportProvider.NAME);
    int size = 400 * 1024;

    // Clean loopback first: a download, nothing declared lost on either side.
    long kernelDropsBefore = kernelUdpDrops(port(server));
    ManagedChannel clean = channel(metrics, "clean", port(server));
    assertThat(call(clean, DOWNLOAD, Integer.toString(size))).hasSize(size);
    TransportMetrics cleanClient = metrics.transport(TernMetrics.Side.CLIENT, "clean", UdpTransportProvider.NAME);
    assertCleanPath(kernelDropsBefore, kernelUdpDrops(port(server)), s, cleanClient);
    clean.shutdown();
    assertThat(clean.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    // What the server declared lost before the lossy connection existed (0 unless the kernel
    // dropped datagrams above).
    long serverLostClean = s.retransmissions();

    // Through a relay that drops one datagram in ten of the server's once the connection is up.
    Loopback.Relay relay = new Loopback.Relay(port(server));
    closeables.add(relay);
    ManagedChannel lossy = channel(metrics, CLIENT, relay.port());
    TransportMetrics c = metrics.transport(TernMetrics.Side.CLIENT, CLIENT, UdpTransportProvider.NAME);
    assertThat(call(lossy, ECHO, "up")).isEqualTo("up");
    int[] lossyPorts = {port(server), relay.port(), relay.backPort()};
    kernelDropsBefore = kernelUdpDrops(lossyPorts);
    relay.dropEveryToClient = 10;
    assertThat(call(lossy, DOWNLOAD, Integer.toString(size))).hasSize(size);
    long dropped = relay.droppedToClient.get();
    assertThat(dropped).as("datagrams the relay dropped").isGreaterThan(10);
    assertThat(s.retransmissions() - serverLostClean).as("packets the server declared lost").isPositive();
    // The count is the connection's own (RFC 9002 §6.1 detection in the core): with the path
    // clean again, ask it until the last losses have been declared.
    relay.dropEveryToClient = 0;
    await("the server's count is its connection's packetsLost",
        () -> Long.parseLong(callUnchecked(lossy, LOST, "")) == s.retransmissions() - serverLostClean);
    // Declared lost: only datagrams that were, by the relay or (on a loaded machine) the kernel on
    // a full socket buffer of the client, the relay or the server.
    long kernelDrops = kernelDropsBefore < 0 ? 0 : kernelUdpDrops(lossyPorts) - kernelDropsBefore;
    assertThat(s.retransmissions() - serverLostClean).isLessThanOrEqualTo(relay.droppedToClient.get() + kernelDrops);
    // Nothing the client sent was lost to the relay, which drops only the server's datagrams.
    assertThat(c.retransmissions()).as("client retransmissions").isLessThanOrEqualTo(kernelDrops);
    assertThat(s.refusals()).isEmpty();
  }

  // ---- helpers ------------------------------------------------------------------------------

  /**
   * On a clean loopback path nothing is declared lost, unless the kernel dropped datagrams on a
   * full receive buffer of the path's sockets (other work on the machine kept a loop from reading),
   * and then no more than it dropped.
   */
  private static void assertCleanPath(long kernelDropsBefore, long kernelDropsAfter, TransportMetrics server,
      TransportMetrics client) {
    long kernelDrops = kernelDropsBefore < 0 ? -1 : kernelDropsAfter - kernelDropsBefore;
    if (kernelDrops == 0) {
      assertThat(server.retransmissions()).as("server retransmissions on a clean loopback path").isZero();
      assertThat(client.retransmissions()).as("client retransmissions on a clean loopback path").isZero();
    } else if (kernelDrops > 0) {
      assertThat(server.retransmissions() + client.retransmissions())
          .as("retransmissions with %d datagrams dropped by the kernel", kernelDrops).isLessThanOrEqualTo(kernelDrops);
    }
  }

  /**
   * Datagrams the kernel dropped so far on full receive buffers of the UDP sockets bound to one of
   * {@code ports} or connected to one (the {@code drops} column of {@code /proc/net/udp} and
   * {@code udp6}), or -1 where those are not to be read. A socket's count goes when it closes.
   */
  private static long kernelUdpDrops(int... ports) throws IOException {
    long drops = 0;
    boolean read = false;
    for (String file : new String[] {"/proc/net/udp", "/proc/net/udp6"}) {
      java.nio.file.Path table = java.nio.file.Paths.get(file);
      if (!java.nio.file.Files.isReadable(table)) {
        continue;
      }
      read = true;
      List<String> lines = java.nio.file.Files.readAllLines(table);
      for (int i = 1; i < lines.size(); i++) {
        String[] cols = lines.get(i).trim().split("\\s+");
        if (cols.length < 13) {
          continue;
        }
        int local = Integer.parseInt(cols[1].substring(cols[1].indexOf(':') + 1), 16);
        int remote = Integer.parseInt(cols[2].substring(cols[2].indexOf(':') + 1), 16);
        for (int port : ports) {
          if (local == port || remote == port) {
            drops += Long.parseLong(cols[cols.length - 1]);
            break;
          }
        }
      }
    }
    return read ? drops : -1;
  }

  private Server server(TernMetrics metrics, Function<TernServerBuilder, TernServerBuilder> configure)
      throws IOException {
    TernServerBuilder b = TernServerBuilder.create().addTransportProvider(new UdpTransportProvider())
        .listen(UdpTransportProvider.NAME, new InetSocketAddress("127.0.0.1", 0))
        .addService(service()).transportOption(UdpTransportOptions.SERVER_STATIC_KEY, Loopback.SERVER_KEY)
        .metrics(metrics, SERVER);
    Server s = configure.apply(b).build().start();
    servers.add(s);
    return s;
  }

  private static int port(Server server) {
    return ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
  }

  private ManagedChannel channel(TernMetrics metrics, String name, int port) {
    ManagedChannel c = TernChannelBuilder.forAddress(new InetSocketAddress("127.0.0.1", port))
        .addTransportProvider(new UdpTransportProvider()).transports(UdpTransportProvider.NAME)
        .usePlaintext().transportOption(UdpTransportOptions.PINNED_SERVER_KEY, Loopback.PIN)
        .metrics(metrics, name).build();
    channels.add(c);
    return c;
  }

  private ServerServiceDefinition service() {
    return ServerServiceDefinition.builder("metrics.Test")
        .addMethod(ECHO, answer(r -> r))
        .addMethod(DOWNLOAD, answer(r -> {
          byte[] b = new byte[Integer.parseInt(r)];
          new Random(1).nextBytes(b);
          return b;
        }))
        .addMethod(LOST, answer(r -> Long.toString(TernServerCalls.connectionInfo().packetsLost())))
        .addMethod(HANG, (call, headers) -> {
          int index;
          synchronized (hangsStarted) {
            index = hangsStarted.size() - 1;
          }
          CompletableFuture<Void> onCancel = hangsCancelled.get(index);
          call.request(1);
          hangsStarted.get(index).complete(null);
          return new ServerCall.Listener<String>() {
            @Override
            public void onCancel() {
              onCancel.complete(null);
            }
          };
        })
        .build();
  }

  /** Starts a {@code Hang} call (half-closed or not); its futures are the next in the lists. */
  private ClientCall<String, String> startHang(Channel channel, boolean halfClose) {
    synchronized (hangsStarted) {
      hangsStarted.add(new CompletableFuture<>());
      hangsCancelled.add(new CompletableFuture<>());
    }
    ClientCall<String, String> call = channel.newCall(HANG, CallOptions.DEFAULT);
    call.start(new ClientCall.Listener<>() {}, new Metadata());
    call.request(1);
    call.sendMessage("wait");
    if (halfClose) {
      call.halfClose();
    }
    return call;
  }

  private static <Q, A> ServerCallHandler<Q, A> answer(Function<Q, A> f) {
    return (call, headers) -> {
      call.request(1);
      return new ServerCall.Listener<>() {
        private Q request;

        @Override
        public void onMessage(Q message) {
          request = message;
        }

        @Override
        public void onHalfClose() {
          call.sendHeaders(new Metadata());
          call.sendMessage(f.apply(request));
          call.close(Status.OK, new Metadata());
        }
      };
    };
  }

  private static <A> A callUnchecked(Channel channel, MethodDescriptor<String, A> method, String request) {
    try {
      return call(channel, method, request);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static <A> A call(Channel channel, MethodDescriptor<String, A> method, String request)
      throws InterruptedException {
    return call(channel, method, request, 30_000);
  }

  /** A blocking unary call; a status other than OK is thrown as a {@link StatusRuntimeException}. */
  private static <A> A call(Channel channel, MethodDescriptor<String, A> method, String request,
      long deadlineMillis) throws InterruptedException {
    CompletableFuture<A> result = new CompletableFuture<>();
    ClientCall<String, A> call = channel.newCall(method,
        CallOptions.DEFAULT.withDeadlineAfter(deadlineMillis, TimeUnit.MILLISECONDS));
    call.start(new ClientCall.Listener<>() {
      private A response;

      @Override
      public void onMessage(A message) {
        response = message;
      }

      @Override
      public void onClose(Status status, Metadata trailers) {
        if (status.isOk()) {
          result.complete(response);
        } else {
          result.completeExceptionally(status.asRuntimeException(trailers));
        }
      }
    }, new Metadata());
    call.request(2);
    call.sendMessage(request);
    call.halfClose();
    try {
      return result.get(deadlineMillis + 5_000, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw (RuntimeException) e.getCause();
    } catch (TimeoutException e) {
      throw new AssertionError("no answer to " + method.getFullMethodName() + " past its deadline");
    }
  }

  /** A client's first INITIAL as the wire has it, with a random (unopenable) payload. */
  private static byte[] initial(Random random, int version, int size) {
    byte[] d = bytes(random, size);
    int p = 0;
    d[p++] = (byte) 0xc0; // long header, fixed bit, INITIAL, 1-byte packet number
    d[p++] = (byte) (version >>> 24);
    d[p++] = (byte) (version >>> 16);
    d[p++] = (byte) (version >>> 8);
    d[p++] = (byte) version;
    d[p] = 8; // Destination Connection ID: 8 random bytes
    p += 9;
    d[p] = 8; // Source Connection ID: 8 random bytes
    p += 9;
    d[p++] = 0; // no token
    int length = size - p - 2;
    d[p++] = (byte) (0x40 | (length >>> 8)); // a 2-byte varint (RFC 9000 §16)
    d[p] = (byte) length;
    return d;
  }

  private static byte[] bytes(Random random, int n) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
  }

  private static int send(DatagramSocket socket, InetSocketAddress to, byte[] d) throws IOException {
    socket.send(new DatagramPacket(d, d.length, to));
    return d.length;
  }

  private static <A> MethodDescriptor<String, A> unary(String name, MethodDescriptor.Marshaller<A> response) {
    return MethodDescriptor.<String, A>newBuilder().setType(MethodDescriptor.MethodType.UNARY)
        .setFullMethodName("metrics.Test/" + name).setRequestMarshaller(UTF8)
        .setResponseMarshaller(response).build();
  }

  private static byte[] readAll(InputStream in) {
    try {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Whether {@code condition} holds within 10 s. */
  private static boolean eventually(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        return false;
      }
      Thread.sleep(10);
    }
    return true;
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    await(() -> what, condition);
  }

  private static void await(java.util.function.Supplier<String> what, BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("not within 10 s: " + what.get());
      }
      Thread.sleep(10);
    }
  }
}
