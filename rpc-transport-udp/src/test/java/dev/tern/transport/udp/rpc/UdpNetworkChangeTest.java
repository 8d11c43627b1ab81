package dev.tern.transport.udp.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.conformance.Utf8;
import dev.tern.rpc.ConnectionInfo;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernChannels;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.TransportMemory;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The application tells a channel that the device's network changed
 * ({@link TernChannels#networkChanged}): the {@code udp} connection moves to a new socket at once
 * (RFC 9000 §9.2), a chat open across the change carries on, and the channel's memory forgets
 * what it learned on the old network.
 */
@Timeout(60)
class UdpNetworkChangeTest {
  private static final MethodDescriptor<String, String> CHAT = MethodDescriptor.<String, String>newBuilder()
      .setType(MethodDescriptor.MethodType.BIDI_STREAMING).setFullMethodName("test.Move/Chat")
      .setRequestMarshaller(Utf8.MARSHALLER).setResponseMarshaller(Utf8.MARSHALLER).build();

  @Test
  void aChatCarriesOnWhenTheApplicationSaysTheNetworkChanged() throws Exception {
    AtomicInteger chats = new AtomicInteger();
    Server server = TernServerBuilder.create().addTransportProvider(new UdpTransportProvider())
        .listen(UdpTransportProvider.NAME, new InetSocketAddress("127.0.0.1", 0))
        .transportOption(UdpTransportOptions.SERVER_STATIC_KEY, Loopback.SERVER_KEY)
        .addService(ServerServiceDefinition.builder("test.Move")
            .addMethod(CHAT, ServerCalls.asyncBidiStreamingCall(out -> {
              chats.incrementAndGet();
              return new StreamObserver<String>() {
                @Override public void onNext(String m) { out.onNext(m); }

                @Override public void onError(Throwable t) {}

                @Override public void onCompleted() { out.onCompleted(); }
              };
            })).build())
        .build().start();
    int port = ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
    TransportMemory memory = TransportMemory.builder().build();
    String authority = "127.0.0.1:" + port;
    memory.markBroken(authority, "quic");
    ManagedChannel channel = TernChannelBuilder.forAddress(new InetSocketAddress("127.0.0.1", port))
        .addTransportProvider(new UdpTransportProvider()).transports(UdpTransportProvider.NAME)
        .usePlaintext().transportOption(UdpTransportOptions.PINNED_SERVER_KEY, Loopback.PIN)
        .transportMemory(memory).build();
    try {
      BlockingQueue<String> echoes = new LinkedBlockingQueue<>();
      CompletableFuture<Void> done = new CompletableFuture<>();
      StreamObserver<String> chat = ClientCalls.asyncBidiStreamingCall(
          channel.newCall(CHAT, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS)),
          new StreamObserver<String>() {
            @Override public void onNext(String m) { echoes.add(m); }

            @Override public void onError(Throwable t) { done.completeExceptionally(t); }

            @Override public void onCompleted() { done.complete(null); }
          });
      chat.onNext("before");
      assertThat(echoes.poll(10, TimeUnit.SECONDS)).isEqualTo("before");
      ConnectionInfo before = TernChannels.connectionInfo(channel);
      assertThat(before.pathChanges()).isZero();

      TernChannels.networkChanged(channel);

      assertThat(memory.isBroken(authority, "quic")).as("marks of the old network").isFalse();
      chat.onNext("after");
      assertThat(echoes.poll(10, TimeUnit.SECONDS)).isEqualTo("after");
      chat.onCompleted();
      done.get(10, TimeUnit.SECONDS);
      ConnectionInfo after = TernChannels.connectionInfo(channel);
      assertThat(after.pathChanges()).as("the connection moved (and was not replaced)").isEqualTo(1);
      assertThat(((InetSocketAddress) after.localAddress()).getPort()).as("its new socket's port")
          .isNotEqualTo(((InetSocketAddress) before.localAddress()).getPort());
      assertThat(chats.get()).as("chats the server saw").isEqualTo(1);
    } finally {
      channel.shutdownNow();
      server.shutdownNow();
      assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }
}
