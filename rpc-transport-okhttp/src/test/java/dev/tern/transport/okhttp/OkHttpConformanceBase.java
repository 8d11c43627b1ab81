package dev.tern.transport.okhttp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.conformance.AbstractTransportConformanceTest;
import dev.tern.conformance.ClientStreamRecorder;
import dev.tern.conformance.ServerStreamRecorder;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.rpc.spi.TransportProvider;
import io.grpc.Metadata;
import io.grpc.Status;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The conformance suite over the OkHttp transport. Three cases check how a server refuses what is
 * over its limits; grpc-okhttp's server refuses them as grpc-okhttp does, not as grpc-netty does
 * (whose statuses the suite expects), so this class checks grpc-okhttp's refusal instead: the
 * client still gets a non-OK status with a description, the server's call layer never sees what
 * was refused, and the connection stays up. A client of the OkHttp transport talking to a
 * grpc-netty server (Tern's {@code tcp} server, a stock grpc-java server) gets grpc-netty's
 * statuses: interop-tests checks it.
 */
abstract class OkHttpConformanceBase extends AbstractTransportConformanceTest {
  private static final Metadata.Key<String> BIG = Metadata.Key.of("conformance-big", Metadata.ASCII_STRING_MARSHALLER);

  @Override
  protected TransportProvider transportProvider() {
    return new OkHttpTransportProvider();
  }

  @Override
  protected SocketAddress newServerAddress() {
    return new InetSocketAddress("127.0.0.1", 0);
  }

  @Override
  protected boolean isAllowedThread(Thread thread) {
    return OkHttpThreads.isShared(thread);
  }

  /**
   * Case (grpc-okhttp's server): a request over the server's maxInboundMessageSize is reset by the
   * server (RST_STREAM INTERNAL_ERROR, RFC 7540 §6.4): the client's call fails with INTERNAL, the
   * server's call layer never gets the message, and the next call on the connection works.
   */
  @Test
  @Override
  protected void requestsOverTheServersLimitFailWithResourceExhausted() throws Exception {
    oversizedRequestIsResetByTheServer();
  }

  /** Case (grpc-okhttp's server): as {@link #requestsOverTheServersLimitFailWithResourceExhausted}. */
  @Test
  @Override
  protected void requestOverTheServersLimitFailsWithGrpcJavasStatus() throws Exception {
    oversizedRequestIsResetByTheServer();
  }

  private void oversizedRequestIsResetByTheServer() throws Exception {
    Started server = startServer(serverOptions().with(TransportOptions.MAX_INBOUND_MESSAGE_SIZE, 1024));
    Connected client = connectReady(server);
    Call call = newCall(client, headers("TooBig", server).build());
    call.stream.request(1);
    call.stream.writeMessage(pattern(4096, 3));
    call.stream.halfClose();
    ServerStreamRecorder s = server.recorder.nextStream(timeout());
    if (s != null) {
      s.stream.request(1);
    }
    ClientStreamRecorder.Closed closed = await(call.recorder.closed, "onClose");
    assertThat(closed.status.getCode()).as("client status %s", closed.status).isEqualTo(Status.Code.INTERNAL);
    assertThat(closed.status.getDescription()).as("client status %s", closed.status).contains("Rst Stream");
    if (s != null) {
      assertThat(s.nextMessage(quietPeriod())).as("the oversized message delivered").isNull();
    }
    assertSmallCallWorks(client, server);
  }

  /**
   * Case (grpc-okhttp's server): request metadata over the server's maxInboundMetadataSize is
   * refused with HTTP 431 (RFC 6585 §5) and grpc-status RESOURCE_EXHAUSTED, which the client reads
   * as grpc-java reads any non-200 HTTP status: INTERNAL, the 431 and the server's message in the
   * description. The server's call layer never sees the call; a call under the limit still works.
   */
  @Test
  @Override
  protected void serverRefusesRequestMetadataOverItsLimit() throws Exception {
    Started server = startServer(serverOptions().with(TransportOptions.MAX_INBOUND_METADATA_SIZE, 4096));
    Connected client = connectReady(server);
    Metadata big = new Metadata();
    char[] b = new char[8192];
    Arrays.fill(b, 'b');
    big.put(BIG, new String(b));
    Call call = newCall(client, headers("Echo", server).metadata(big).build());
    call.stream.request(1);
    call.stream.writeMessage(utf8("x"));
    call.stream.halfClose();
    ClientStreamRecorder.Closed closed = await(call.recorder.closed, "onClose");
    assertThat(closed.status.getCode()).as("client status %s", closed.status).isEqualTo(Status.Code.INTERNAL);
    assertThat(closed.status.getDescription()).as("client status %s", closed.status)
        .contains("431").contains("Request metadata larger than 4096");
    assertThat(server.recorder.nextStream(quietPeriod())).as("a stream for the refused call").isNull();
    assertSmallCallWorks(client, server);
  }

  private void assertSmallCallWorks(Connected client, Started server) throws Exception {
    Call call = newCall(client, headers("Echo", server).build());
    call.stream.request(1);
    call.stream.writeMessage(utf8("small"));
    call.stream.halfClose();
    ServerStreamRecorder s = acceptStream(server);
    s.stream.request(1);
    assertThat(utf8(s.nextMessage(timeout()))).isEqualTo("small");
    s.stream.writeHeaders(new Metadata());
    s.stream.writeMessage(utf8("ok"));
    s.stream.close(Status.OK, new Metadata());
    assertThat(utf8(call.recorder.nextMessage(timeout()))).isEqualTo("ok");
    ClientStreamRecorder.Closed closed = await(call.recorder.closed, "onClose of the small call");
    assertThat(closed.status.getCode()).as("the next call on the connection: %s", closed.status)
        .isEqualTo(Status.Code.OK);
  }
}
