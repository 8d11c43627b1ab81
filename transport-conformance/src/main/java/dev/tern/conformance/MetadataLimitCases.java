package dev.tern.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code maxInboundMetadataSize} on both sides, end to end: a server refuses a request whose
 * metadata is over its limit, a channel a response whose headers are over its own, each with a
 * non-OK status and a description, and a call under the limits still works on the same channel.
 */
public abstract class MetadataLimitCases extends ConnectionEventCases {
  private static final Metadata.Key<String> BIG = Metadata.Key.of("conformance-big", Metadata.ASCII_STRING_MARSHALLER);
  private static final MethodDescriptor<String, String> BIG_HEADERS =
      StringService.method("BigHeaders", MethodDescriptor.MethodType.UNARY);
  /** The limit both cases set; the default (8 KiB) is well above it. */
  private static final int LIMIT = 4096;

  /** Echo, plus BigHeaders: answers with response headers of as many bytes as the request says. */
  private static ServerServiceDefinition services() {
    ServerServiceDefinition.Builder b = ServerServiceDefinition.builder("conformance.Strings");
    for (io.grpc.ServerMethodDefinition<?, ?> m : new StringService().definition().getMethods()) {
      b.addMethod(m);
    }
    return b.addMethod(BIG_HEADERS, (ServerCall<String, String> call, Metadata headers) -> {
      call.request(1);
      return new ServerCall.Listener<String>() {
        @Override
        public void onMessage(String size) {
          Metadata md = new Metadata();
          md.put(BIG, "h".repeat(Integer.parseInt(size)));
          call.sendHeaders(md);
          call.sendMessage("done");
          call.close(Status.OK, new Metadata());
        }
      };
    }).build();
  }

  /** A unary call with {@code headers}; its status, never throws for a non-OK one. */
  private Status call(Channel channel, MethodDescriptor<String, String> method, Metadata headers, String request) {
    CompletableFuture<Status> closed = new CompletableFuture<>();
    ClientCall<String, String> call = channel.newCall(method, CallOptions.DEFAULT);
    call.start(new ClientCall.Listener<>() {
      @Override
      public void onClose(Status status, Metadata trailers) {
        closed.complete(status);
      }
    }, headers);
    call.request(2);
    call.sendMessage(request);
    call.halfClose();
    return await(closed, "the close of " + method.getFullMethodName());
  }

  private Server server(int maxMetadata) throws Exception {
    TernServerBuilder b = TernServerBuilder.create().addTransportProvider(provider)
        .listen(provider.name(), newServerAddress()).addService(services());
    if (maxMetadata > 0) {
      b.maxInboundMetadataSize(maxMetadata);
    }
    return track(configureServer(b).build().start());
  }

  private ManagedChannel channel(Server server, int maxMetadata) {
    SocketAddress address = server.getListenSockets().get(0);
    TernChannelBuilder b = TernChannelBuilder.forAddress(address).addTransportProvider(provider)
        .transports(provider.name()).overrideAuthority(authorityFor(address));
    if (maxMetadata > 0) {
      b.maxInboundMetadataSize(maxMetadata);
    }
    return track(configureChannel(b).build());
  }

  /** Case: a server refuses request metadata over its maxInboundMetadataSize; smaller still works. */
  @Test
  protected void serverRefusesRequestMetadataOverItsLimit() throws Exception {
    ManagedChannel channel = channel(server(LIMIT), 0);
    Metadata small = new Metadata();
    small.put(BIG, "s".repeat(LIMIT / 4));
    assertThat(call(channel, StringService.ECHO, small, "x").getCode()).as("under the limit").isEqualTo(Status.Code.OK);
    Metadata big = new Metadata();
    big.put(BIG, "b".repeat(LIMIT * 2));
    Status refused = call(channel, StringService.ECHO, big, "x");
    assertThat(refused.getCode()).as("over the server's limit: %s", refused).isEqualTo(expectedMetadataRefusal());
    assertThat(refused.getDescription()).as("the refusal's description").isNotBlank();
    if (metadataRefusalKeepsTheConnection()) {
      assertThat(call(channel, StringService.ECHO, small, "y").getCode()).as("the channel still works afterwards")
          .isEqualTo(Status.Code.OK);
    }
    channel.shutdownNow().awaitTermination(timeout().toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Case: a channel refuses response headers over its maxInboundMetadataSize; smaller still work. */
  @Test
  protected void channelRefusesResponseMetadataOverItsLimit() throws Exception {
    ManagedChannel channel = channel(server(0), LIMIT);
    assertThat(call(channel, BIG_HEADERS, new Metadata(), Integer.toString(LIMIT / 4)).getCode())
        .as("under the limit").isEqualTo(Status.Code.OK);
    Status refused = call(channel, BIG_HEADERS, new Metadata(), Integer.toString(LIMIT * 2));
    assertThat(refused.getCode()).as("over the channel's limit: %s", refused).isEqualTo(expectedMetadataRefusal());
    assertThat(refused.getDescription()).as("the refusal's description").isNotBlank();
    if (metadataRefusalKeepsTheConnection()) {
      assertThat(call(channel, BIG_HEADERS, new Metadata(), Integer.toString(LIMIT / 4)).getCode())
          .as("the channel still works afterwards").isEqualTo(Status.Code.OK);
    }
  }

  /**
   * The code a call gets when metadata exceeds a side's limit: RESOURCE_EXHAUSTED, as grpc-java's
   * in-process transport reports it (a transport that is grpc-netty, {@code tcp}, has grpc-netty's
   * INTERNAL instead).
   */
  protected Status.Code expectedMetadataRefusal() {
    return Status.Code.RESOURCE_EXHAUSTED;
  }

  /**
   * Whether refusing one call's metadata leaves its connection up for the next call, as it should
   * (grpc-netty refuses the one stream). A transport that loses the connection overrides this
   * with its reason, a known defect the suite then does not check.
   */
  protected boolean metadataRefusalKeepsTheConnection() {
    return true;
  }
}
