package dev.tern.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernChannels;
import dev.tern.rpc.TernServerBuilder;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The transport conformance suite: every case here and in the classes it extends runs against the
 * transport a subclass names. A subclass supplies only factories:
 *
 * <pre>{@code
 * class TcpConformanceTest extends AbstractTransportConformanceTest {
 *   protected TransportProvider transportProvider() { return new TcpTransportProvider(); }
 *   protected SocketAddress newServerAddress() { return new InetSocketAddress("127.0.0.1", 0); }
 * }
 * }</pre>
 *
 * and may override {@link #serverOptions()}, {@link #clientOptions()}, {@link #configureServer},
 * {@link #configureChannel}, {@link #carriesPriority()}, {@link #carriesEarlyDataFlag()} and
 * {@link #isAllowedThread}. The cases are {@code protected}: one a transport cannot pass is
 * overridden in the subclass and disabled with the reason:
 *
 * <pre>{@code
 * @Test
 * @Disabled("kernel TCP has no congestion window to report")
 * @Override
 * protected void someCase() {}
 * }</pre>
 *
 * <p>Most cases drive the SPI directly; those here also go end to end through {@link
 * TernChannelBuilder} and {@link TernServerBuilder}. After every case the suite shuts everything
 * down and fails on transports that never terminate, on listener callbacks that overlap or follow
 * the end of a stream, and on leaked Netty buffers (paranoid leak detection).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class AbstractTransportConformanceTest extends MetadataLimitCases {

  /** Case: No buffers leak after calls of every kind. */
  @Test
  protected void noBuffersLeakAfterCallsOfEveryKind() throws Exception {
    Started server = startServer();
    server.recorder.echoMode();
    Connected client = connectReady(server);
    for (int i = 0; i < 20; i++) {
      Call c = newCall(client, headers("Echo", server).messageEncoding(i % 2 == 0 ? "identity" : "gzip").build());
      c.stream.request(1);
      c.stream.writeMessage(i == 0 ? pattern(1024 * 1024, i) : pattern(1000 + i, i));
      if (i % 5 == 4) {
        c.stream.cancel(Status.CANCELLED.withDescription("cancelled mid-call"));
      } else {
        c.stream.halfClose();
        assertThat(c.recorder.nextMessage(timeout())).as("echo %d", i).isNotNull();
      }
      await(c.recorder.closed, "onClose of call " + i);
    }
    client.transport.shutdown();
    server.transport.shutdown();
    await(client.recorder.terminated, "client transportTerminated");
    await(server.recorder.terminated, "serverTerminated");
    LeakDetection.collectAndReport();
    assertThat(LeakDetection.drain()).as("leaked buffers").isEmpty();
  }

  /** Case: No threads left after everything shut down. */
  @Test
  protected void noThreadsLeftAfterEverythingShutDown() throws Exception {
    Set<Thread> before = ThreadLeaks.snapshot();
    Started server = startServer();
    server.recorder.echoMode();
    Connected client = connectReady(server);
    for (int i = 0; i < 5; i++) {
      Call c = newCall(client, headers("Echo", server).build());
      c.stream.request(1);
      c.stream.writeMessage(utf8("t" + i));
      c.stream.halfClose();
      await(c.recorder.closed, "onClose");
    }
    client.transport.shutdown();
    server.transport.shutdown();
    await(client.recorder.terminated, "client transportTerminated");
    await(server.recorder.terminated, "serverTerminated");
    assertThat(ThreadLeaks.leakedSince(before, this::isAllowedThread, Duration.ofSeconds(10)))
        .as("threads still running after shutdown").isEmpty();
  }

  /** Case: 100 small server-streamed messages then close, requested one at a time. */
  @Test
  protected void serverStreamsHundredSmallMessagesThenClosesRequestedOneAtATime() throws Exception {
    serverStreamsThenCloses(100, 16, true);
  }

  /** Case: 100 small server-streamed messages then close, requested all at once. */
  @Test
  protected void serverStreamsHundredSmallMessagesThenClosesRequestedAllAtOnce() throws Exception {
    serverStreamsThenCloses(100, 16, false);
  }

  /** Case: 1000 small server-streamed messages then close, requested one at a time. */
  @Test
  protected void serverStreamsThousandSmallMessagesThenClosesRequestedOneAtATime() throws Exception {
    serverStreamsThenCloses(1000, 16, true);
  }

  /** Case: 1000 small server-streamed messages then close, requested all at once. */
  @Test
  protected void serverStreamsThousandSmallMessagesThenClosesRequestedAllAtOnce() throws Exception {
    serverStreamsThenCloses(1000, 16, false);
  }

  /** Case: 24 server-streamed messages of 100 KiB then close, requested one at a time. */
  @Test
  protected void serverStreamsLargeMessagesThenClosesRequestedOneAtATime() throws Exception {
    serverStreamsThenCloses(24, 100 * 1024, true);
  }

  /** Case: 24 server-streamed messages of 100 KiB then close, requested all at once. */
  @Test
  protected void serverStreamsLargeMessagesThenClosesRequestedAllAtOnce() throws Exception {
    serverStreamsThenCloses(24, 100 * 1024, false);
  }

  /**
   * Case: the server streams 50 messages and closes while the client still sends; the client,
   * requesting one at a time, half-closes midway and still gets every message, then OK.
   */
  @Test
  protected void clientHalfClosingAfterTheServerClosedStillGetsEveryMessage() throws Exception {
    Started server = startServer();
    Call call = newCall(connectReady(server), headers("Bidi", server).build());
    call.stream.writeMessage(utf8("open"));
    call.stream.flush();
    call.stream.request(1);
    ServerStreamRecorder s = acceptStream(server);
    s.stream.request(1);
    assertThat(s.nextMessage(timeout())).as("the first request message").isNotNull();
    s.stream.writeHeaders(new Metadata());
    for (int i = 0; i < 50; i++) {
      s.stream.writeMessage(utf8("r" + i));
    }
    s.stream.close(Status.OK, new Metadata());
    for (int i = 0; i < 50; i++) {
      ByteBuffer m = call.recorder.nextMessage(timeout());
      assertThat(m).as("response %d", i).isNotNull();
      assertThat(utf8(m)).isEqualTo("r" + i);
      if (i == 10) {
        call.stream.halfClose();
      }
      if (i < 49) {
        assertThat(call.recorder.closed.isDone()).as("closed before response %d was requested", i + 1).isFalse();
        call.stream.request(1);
      }
    }
    ClientStreamRecorder.Closed closed = await(call.recorder.closed, "onClose after the last message");
    assertThat(closed.status.getCode()).as("status %s", closed.status).isEqualTo(Status.Code.OK);
  }

  /**
   * The server writes {@code count} messages of about {@code size} bytes back to back and closes
   * with OK and trailers at once; the client must get every message in order, the close only after
   * the last one it asked for, then OK with the trailers.
   */
  private void serverStreamsThenCloses(int count, int size, boolean oneAtATime) throws Exception {
    Started server = startServer();
    Call call = newCall(connectReady(server), headers("ServerStreaming", server).build());
    call.stream.writeMessage(utf8("go"));
    call.stream.halfClose();
    call.stream.request(oneAtATime ? 1 : count);
    ServerStreamRecorder s = acceptStream(server);
    s.stream.request(1);
    assertThat(s.nextMessage(timeout())).as("the request message").isNotNull();
    await(s.halfClosed, "onHalfClose");
    s.stream.writeHeaders(new Metadata());
    for (int i = 0; i < count; i++) {
      s.stream.writeMessage(pattern(size + i % 7, i));
    }
    Metadata trailers = new Metadata();
    trailers.put(StreamingCases.ASCII_KEY, "after-" + count);
    s.stream.close(Status.OK, trailers);
    for (int i = 0; i < count; i++) {
      ByteBuffer m = call.recorder.nextMessage(timeout());
      assertThat(m).as("response %d of %d (closed: %s)", i, count,
          call.recorder.closed.isDone() ? call.recorder.closed.getNow(null).status : "no").isNotNull();
      assertThat(m.equals(pattern(size + i % 7, i))).as("response %d intact and in order", i).isTrue();
      if (oneAtATime && i < count - 1) {
        assertThat(call.recorder.closed.isDone()).as("closed before response %d was requested", i + 1).isFalse();
        call.stream.request(1);
      }
    }
    ClientStreamRecorder.Closed closed = await(call.recorder.closed, "onClose after the last message");
    assertThat(closed.status.getCode()).as("status %s", closed.status).isEqualTo(Status.Code.OK);
    assertThat(closed.trailers.get(StreamingCases.ASCII_KEY)).isEqualTo("after-" + count);
    assertThat(call.recorder.pendingMessages()).as("messages beyond those sent").isZero();
    await(s.completed, "server onComplete");
  }

  /** A Tern server on this transport with {@code versions}, serving {@code service}. */
  private Server endToEndServer(StringService service, int... versions) throws Exception {
    TernServerBuilder b = TernServerBuilder.create().addTransportProvider(provider)
        .listen(provider.name(), newServerAddress()).addService(service.definition());
    if (versions.length > 0) {
      b.protocolVersions(versions);
    }
    return track(configureServer(b).build().start());
  }

  private ManagedChannel endToEndChannel(Server server, int... versions) {
    SocketAddress address = server.getListenSockets().get(0);
    TernChannelBuilder b = TernChannelBuilder.forAddress(address).addTransportProvider(provider)
        .transports(provider.name()).overrideAuthority(authorityFor(address));
    if (versions.length > 0) {
      b.protocolVersions(versions);
    }
    return track(configureChannel(b).build());
  }

  /** Case: End to end unary call through the call layer. */
  @Test
  protected void endToEndUnaryCallThroughTheCallLayer() throws Exception {
    Server server = endToEndServer(new StringService());
    ManagedChannel channel = endToEndChannel(server);
    assertThat(StringService.call(channel, StringService.ECHO, CallOptions.DEFAULT, "h\u00e9llo",
        timeout().toMillis())).isEqualTo("h\u00e9llo");
    assertThat(TernChannels.selectedTransport(channel)).isEqualTo(provider.name());
    assertThat(StringService.call(channel, StringService.ECHO, CallOptions.DEFAULT.withCompression("gzip"),
        "x".repeat(50_000), timeout().toMillis())).hasSize(50_000);
  }

  /**
   * Case: End to end deadline fails the client and cancels the server context. A first call sets
   * up the connection (and its TLS handshake, if any) without a deadline, so the short deadline
   * that follows measures only the hanging call, not connection setup.
   */
  @Test
  protected void endToEndDeadlineFailsTheClientAndCancelsTheServerContext() throws Exception {
    StringService service = new StringService();
    Server server = endToEndServer(service);
    ManagedChannel channel = endToEndChannel(server);
    assertThat(StringService.call(channel, StringService.ECHO, CallOptions.DEFAULT, "warm-up",
        timeout().toMillis())).as("the warm-up call").isEqualTo("warm-up");
    assertThatThrownBy(() -> StringService.call(channel, StringService.HANG,
        CallOptions.DEFAULT.withDeadlineAfter(300, TimeUnit.MILLISECONDS), "zzz", timeout().toMillis()))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).as("client status %s", e.getStatus())
                .isEqualTo(Status.Code.DEADLINE_EXCEEDED));
    await(service.hangStarted, "the Hang call reaching the server handler");
    Throwable cause = await(service.hangContextCancelled, "the server context's cancellation");
    assertThat(cause).as("server context cancelled by its deadline or the client's cancel").isNotNull();
  }

  /** Case: End to end versions agree on the highest common one. */
  @Test
  protected void endToEndVersionsAgreeOnTheHighestCommonOne() throws Exception {
    Server server = endToEndServer(new StringService(), 1, 2);
    ManagedChannel newer = endToEndChannel(server, 2, 3);
    assertThat(StringService.call(newer, StringService.VERSION, CallOptions.DEFAULT, "", timeout().toMillis()))
        .isEqualTo("2/" + provider.name());
    assertThat(TernChannels.connectionInfo(newer).protocolVersion()).isEqualTo(2);
    ManagedChannel older = endToEndChannel(server, 1);
    assertThat(StringService.call(older, StringService.VERSION, CallOptions.DEFAULT, "", timeout().toMillis()))
        .isEqualTo("1/" + provider.name());
  }

  /** Case: End to end no common version fails naming both sides. */
  @Test
  protected void endToEndNoCommonVersionFailsNamingBothSides() throws Exception {
    Server server = endToEndServer(new StringService(), 1, 2);
    ManagedChannel channel = endToEndChannel(server, 3);
    assertThatThrownBy(() -> StringService.call(channel, StringService.ECHO, CallOptions.DEFAULT, "x",
        timeout().toMillis()))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
          assertThat(e.getStatus().getDescription()).contains("[3]").contains("[2,1]");
        });
  }

  /** Case: End to end unknown method is unimplemented. */
  @Test
  protected void endToEndUnknownMethodIsUnimplemented() throws Exception {
    Server server = endToEndServer(new StringService());
    ManagedChannel channel = endToEndChannel(server);
    assertThatThrownBy(() -> StringService.call(channel,
        StringService.method("Missing", io.grpc.MethodDescriptor.MethodType.UNARY), CallOptions.DEFAULT, "x",
        timeout().toMillis()))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
          assertThat(e.getStatus().getDescription()).contains("conformance.Strings/Missing");
        });
  }
}
