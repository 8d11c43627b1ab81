package dev.tern.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.rpc.ConnectionInfo;
import dev.tern.rpc.spi.ServerTransport;
import dev.tern.rpc.spi.TransportProvider;
import io.grpc.Metadata;
import io.grpc.Status;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import org.junit.jupiter.api.Test;

/** Cases on starting, binding, connecting and shutting down transports. */
public abstract class LifecycleCases extends ConformanceFixture {

  /** Case: Server reports the address it bound with a real port. */
  @Test
  protected void serverReportsTheAddressItBoundWithARealPort() throws Exception {
    ServerTransport t = provider.newServerTransport(newServerAddress(), withWindow(serverOptions()));
    assertThat(t.listenAddress()).as("listen address before start").isNull();
    ServerTransportRecorder r = new ServerTransportRecorder(violations);
    t.start(r);
    try {
      SocketAddress bound = t.listenAddress();
      assertThat(bound).isNotNull();
      if (bound instanceof InetSocketAddress) {
        assertThat(((InetSocketAddress) bound).getPort()).as("bound port").isPositive();
      }
    } finally {
      t.shutdown();
    }
    await(r.terminated, "serverTerminated after shutdown");
  }

  /** Case: Binding an address in use fails with an IOException naming it. */
  @Test
  protected void bindingAnAddressInUseFailsWithAnIOExceptionNamingIt() throws Exception {
    Started first = startServer();
    SocketAddress taken = first.address();
    ServerTransport second = provider.newServerTransport(taken, withWindow(serverOptions()));
    String expected = taken instanceof InetSocketAddress
        ? Integer.toString(((InetSocketAddress) taken).getPort()) : taken.toString();
    assertThatThrownBy(() -> second.start(new ServerTransportRecorder(violations)))
        .isInstanceOf(IOException.class)
        .hasMessageContaining(expected);
  }

  /** Case: Client becomes ready and describes its connection. */
  @Test
  protected void clientBecomesReadyAndDescribesItsConnection() throws Exception {
    Started server = startServer();
    Connected client = connectReady(server);
    ConnectionInfo info = client.transport.connectionInfo();
    assertThat(info.transport()).isEqualTo(provider.name());
    if (provider.versionHandshake() == TransportProvider.VersionHandshake.IN_TRANSPORT) {
      assertThat(info.protocolVersion()).as("version agreed in the transport's handshake").isPositive();
    }
  }

  /** Case: Client shutdown reports shutdown then termination. */
  @Test
  protected void clientShutdownReportsShutdownThenTermination() throws Exception {
    Started server = startServer();
    Connected client = connectReady(server);
    client.transport.shutdown();
    Status status = await(client.recorder.shutdown, "transportShutdown");
    assertThat(status).isNotNull();
    await(client.recorder.terminated, "transportTerminated");
  }

  /** Case: Idle server terminates on shutdown and its clients hear of it. */
  @Test
  protected void idleServerTerminatesOnShutdownAndItsClientsHearOfIt() throws Exception {
    Started server = startServer();
    Connected client = connectReady(server);
    server.transport.shutdown();
    await(server.recorder.terminated, "serverTerminated");
    Status status = await(client.recorder.shutdown, "client transportShutdown after the server left");
    assertThat(status.isOk()).isFalse();
  }

  /** Case: Connecting where nothing listens fails with unavailable. */
  @Test
  protected void connectingWhereNothingListensFailsWithUnavailable() throws Exception {
    Started server = startServer();
    SocketAddress address = server.address();
    server.transport.shutdown();
    await(server.recorder.terminated, "serverTerminated");
    Connected client = connect(address, clientOptions());
    Status status = await(client.recorder.shutdown, "transportShutdown of a failed connection");
    assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(status.getDescription()).as("a description saying why").isNotBlank();
    Call call = newCall(client, headers("Unary", server).build());
    ClientStreamRecorder.Closed closed = await(call.recorder.closed, "onClose of a stream on a failed transport");
    assertThat(closed.status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    await(client.recorder.terminated, "transportTerminated");
  }

  /** Case: Streams opened after client shutdown close with unavailable. */
  @Test
  protected void streamsOpenedAfterClientShutdownCloseWithUnavailable() throws Exception {
    Started server = startServer();
    Connected client = connectReady(server);
    client.transport.shutdown();
    Call call = newCall(client, headers("Unary", server).build());
    ClientStreamRecorder.Closed closed = await(call.recorder.closed, "onClose of a refused stream");
    assertThat(closed.status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(server.recorder.nextStream(quietPeriod())).as("stream reaching the server").isNull();
  }

  /** Case: Client shutdown lets open streams finish. */
  @Test
  protected void clientShutdownLetsOpenStreamsFinish() throws Exception {
    Started server = startServer();
    Connected client = connectReady(server);
    Call call = newCall(client, headers("Unary", server).build());
    call.stream.request(1);
    call.stream.writeMessage(utf8("before shutdown"));
    call.stream.halfClose();
    ServerStreamRecorder s = acceptStream(server);
    client.transport.shutdown();
    s.stream.request(1);
    assertThat(utf8(s.nextMessage(timeout()))).isEqualTo("before shutdown");
    s.stream.writeHeaders(new Metadata());
    s.stream.writeMessage(utf8("answer"));
    s.stream.close(Status.OK, new Metadata());
    assertThat(utf8(call.recorder.nextMessage(timeout()))).isEqualTo("answer");
    assertThat(await(call.recorder.closed, "onClose").status.isOk()).isTrue();
    await(client.recorder.terminated, "transportTerminated once the stream is done");
  }
}
