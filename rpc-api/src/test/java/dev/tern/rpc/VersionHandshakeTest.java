package dev.tern.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.rpc.inprocess.InProcessAddress;
import dev.tern.rpc.spi.ClientStreamListener;
import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.RequestHeaders;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.rpc.spi.TransportProvider.VersionHandshake;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The protocol-version handshake across version sets, for both ways a transport can carry it: in
 * its own handshake, and in per-call headers.
 */
@Timeout(30)
class VersionHandshakeTest {
  private static final MethodDescriptor<String, String> VERSION =
      TestMethods.method("Version", MethodDescriptor.MethodType.UNARY);
  private final List<ManagedChannel> channels = new ArrayList<>();
  private final List<Server> servers = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    for (ManagedChannel c : channels) {
      c.shutdownNow();
      assertThat(c.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
    for (Server s : servers) {
      s.shutdownNow();
      assertThat(s.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
  }

  private static ServerServiceDefinition versionService() {
    return ServerServiceDefinition.builder("test.Echo")
        .addMethod(VERSION, ServerCalls.asyncUnaryCall((req, obs) -> {
          obs.onNext(Integer.toString(TernServerCalls.protocolVersion()));
          obs.onCompleted();
        }))
        .build();
  }

  private InProcessAddress server(CapturingProvider provider, int... versions) throws Exception {
    InProcessAddress address = new InProcessAddress("versions-" + UUID.randomUUID());
    servers.add(TernServerBuilder.create().addTransportProvider(provider).listen(provider.name(), address)
        .protocolVersions(versions).addService(versionService()).build().start());
    return address;
  }

  private ManagedChannel channel(CapturingProvider provider, InProcessAddress address, int... versions) {
    ManagedChannel c = TernChannelBuilder.forAddress(address).addTransportProvider(provider)
        .transports(provider.name()).usePlaintext().protocolVersions(versions).build();
    channels.add(c);
    return c;
  }

  private static CapturingProvider provider(VersionHandshake handshake) {
    return new CapturingProvider("versions-" + handshake.name().toLowerCase(java.util.Locale.ROOT), handshake);
  }

  @ParameterizedTest
  @EnumSource(VersionHandshake.class)
  void olderClientAndNewerServerSpeakTheOlderVersion(VersionHandshake handshake) throws Exception {
    CapturingProvider p = provider(handshake);
    ManagedChannel c = channel(p, server(p, 1, 2), 1);
    assertThat(ClientCalls.blockingUnaryCall(c, VERSION, CallOptions.DEFAULT, "")).isEqualTo("1");
    assertThat(TernChannels.connectionInfo(c).protocolVersion()).isEqualTo(1);
  }

  @ParameterizedTest
  @EnumSource(VersionHandshake.class)
  void newerClientAndOlderServerSpeakTheHighestCommonVersion(VersionHandshake handshake) throws Exception {
    CapturingProvider p = provider(handshake);
    ManagedChannel c = channel(p, server(p, 1, 2), 2, 3);
    assertThat(ClientCalls.blockingUnaryCall(c, VERSION, CallOptions.DEFAULT, "")).isEqualTo("2");
    assertThat(TernChannels.connectionInfo(c).protocolVersion()).isEqualTo(2);
    if (handshake == VersionHandshake.PER_CALL_HEADER) {
      RequestHeaders h = p.seen.poll(5, TimeUnit.SECONDS);
      assertThat(h.metadata().get(ProtocolVersions.REQUEST_KEY)).isEqualTo("3,2");
    }
  }

  @ParameterizedTest
  @EnumSource(VersionHandshake.class)
  void noCommonVersionFailsWithBothListsNamed(VersionHandshake handshake) throws Exception {
    CapturingProvider p = provider(handshake);
    ManagedChannel c = channel(p, server(p, 1, 2), 3);
    assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(c, VERSION, CallOptions.DEFAULT, ""))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
          assertThat(e.getStatus().getDescription()).contains("[3]").contains("[2,1]");
          if (handshake == VersionHandshake.PER_CALL_HEADER) {
            assertThat(e.getTrailers().get(ProtocolVersions.SUPPORTED_KEY)).isEqualTo("2,1");
          }
        });
  }

  @Test
  void aClientThatSendsNoVersionIsServedAtTheBaseVersion() throws Exception {
    CapturingProvider p = provider(VersionHandshake.PER_CALL_HEADER);
    InProcessAddress address = server(p, 1, 2);
    ClientTransport t = p.newClientTransport(address, "stock", TransportOptions.defaults());
    CompletableFuture<Void> ready = new CompletableFuture<>();
    CompletableFuture<Void> terminated = new CompletableFuture<>();
    t.start(new ClientTransport.Listener() {
      @Override public void transportReady(ConnectionInfo info) { ready.complete(null); }

      @Override public void transportShutdown(Status status) {}

      @Override public void transportTerminated() { terminated.complete(null); }
    });
    ready.get(5, TimeUnit.SECONDS);
    CompletableFuture<Metadata> headers = new CompletableFuture<>();
    CompletableFuture<String> body = new CompletableFuture<>();
    CompletableFuture<Status> closed = new CompletableFuture<>();
    var stream = t.newStream(RequestHeaders.builder(VERSION.getFullMethodName()).build(), new ClientStreamListener() {
      @Override public void onHeaders(Metadata md) { headers.complete(md); }

      @Override public void onMessage(ByteBuffer m) { body.complete(TestMethods.STRING.parse(new ByteBufferInputStream(m))); }

      @Override public void onReady() {}

      @Override public void onClose(Status status, Metadata trailers) { closed.complete(status); }
    });
    stream.request(1);
    stream.writeMessage(ByteBuffer.wrap(new byte[0]));
    stream.halfClose();
    assertThat(closed.get(5, TimeUnit.SECONDS).isOk()).isTrue();
    assertThat(headers.get(5, TimeUnit.SECONDS).get(ProtocolVersions.SELECTED_KEY)).isEqualTo("1");
    assertThat(body.get(5, TimeUnit.SECONDS)).isEqualTo("1");
    t.shutdown();
    terminated.get(5, TimeUnit.SECONDS);
  }
}
