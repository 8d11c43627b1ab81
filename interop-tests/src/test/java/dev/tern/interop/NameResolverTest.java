package dev.tern.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.conformance.Utf8;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import io.grpc.CallOptions;
import io.grpc.EquivalentAddressGroup;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.NameResolver;
import io.grpc.NameResolverProvider;
import io.grpc.NameResolverRegistry;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Name resolution through grpc-java's public API: a {@link NameResolverProvider} registered for a
 * scheme is used for targets of that scheme, {@code nameResolverFactory} for any target; every
 * address a resolver gives is tried; the channel follows a resolver whose addresses change, and
 * asks it to resolve again when it reconnects. Over real TCP sockets.
 */
@Timeout(60)
class NameResolverTest {
  private static final MethodDescriptor.Marshaller<String> UTF8 = Utf8.MARSHALLER;
  private static final MethodDescriptor<String, String> WHO = MethodDescriptor.<String, String>newBuilder()
      .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName("tern.test.Who/Am")
      .setRequestMarshaller(UTF8).setResponseMarshaller(UTF8).build();

  private final List<Server> servers = new ArrayList<>();
  private final List<ManagedChannel> channels = new ArrayList<>();
  private final List<NameResolverProvider> registered = new ArrayList<>();

  /** A resolver whose addresses the test sets; it counts how often it was asked to resolve. */
  static final class SettableResolver extends NameResolver {
    private final NameResolver.Args args;
    volatile List<SocketAddress> addresses;
    final AtomicInteger resolutions = new AtomicInteger();
    private Listener2 listener;

    SettableResolver(NameResolver.Args args, List<SocketAddress> addresses) {
      this.args = args;
      this.addresses = addresses;
    }

    @Override public String getServiceAuthority() { return "who.test"; }

    @Override
    public void start(Listener2 l) {
      listener = l;
      publish();
    }

    @Override
    public void refresh() {
      publish();
    }

    void set(List<SocketAddress> now) {
      addresses = now;
      args.getSynchronizationContext().execute(this::publish);
    }

    private void publish() {
      resolutions.incrementAndGet();
      listener.onResult(NameResolver.ResolutionResult.newBuilder()
          .setAddresses(List.of(new EquivalentAddressGroup(addresses))).build());
    }

    @Override public void shutdown() {}
  }

  static final class SettableProvider extends NameResolverProvider {
    private final String scheme;
    private final List<SocketAddress> initial;
    volatile SettableResolver made;

    SettableProvider(String scheme, List<SocketAddress> initial) {
      this.scheme = scheme;
      this.initial = initial;
    }

    @Override
    public NameResolver newNameResolver(URI targetUri, NameResolver.Args args) {
      if (!scheme.equals(targetUri.getScheme())) {
        return null;
      }
      made = new SettableResolver(args, initial);
      return made;
    }

    @Override public String getDefaultScheme() { return scheme; }

    @Override protected boolean isAvailable() { return true; }

    @Override protected int priority() { return 5; }
  }

  private InetSocketAddress server(String name) throws IOException {
    Server s = TernServerBuilder.create().listen("tcp", new InetSocketAddress("127.0.0.1", 0))
        .addService(ServerServiceDefinition.builder("tern.test.Who")
            .addMethod(WHO, ServerCalls.asyncUnaryCall((request, response) -> {
              response.onNext(name);
              response.onCompleted();
            })).build())
        .build().start();
    servers.add(s);
    return new InetSocketAddress(InetAddress.getByName("127.0.0.1"), s.getPort());
  }

  private static InetSocketAddress deadAddress() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      return new InetSocketAddress(InetAddress.getByName("127.0.0.1"), s.getLocalPort());
    }
  }

  private static String who(ManagedChannel channel) {
    return ClientCalls.blockingUnaryCall(channel, WHO, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), "?");
  }

  @Test
  void aRegisteredSchemesResolverIsUsedAndItsChangesFollowed() throws Exception {
    InetSocketAddress one = server("one");
    InetSocketAddress two = server("two");
    SettableProvider provider = new SettableProvider("terntest", List.of(deadAddress(), one));
    NameResolverRegistry.getDefaultRegistry().register(provider);
    registered.add(provider);

    ManagedChannel channel = TernChannelBuilder.forTarget("terntest:///who").transports("tcp").usePlaintext().build();
    channels.add(channel);
    assertThat(channel.authority()).as("the resolver's service authority").isEqualTo("who.test");
    assertThat(who(channel)).as("past the dead first address").isEqualTo("one");

    // The connection to "one" is left once the resolver no longer lists it (the channel leaves
    // READY); the next call reaches "two".
    io.grpc.ConnectivityState before = channel.getState(false);
    assertThat(before).isEqualTo(io.grpc.ConnectivityState.READY);
    java.util.concurrent.CountDownLatch left = new java.util.concurrent.CountDownLatch(1);
    channel.notifyWhenStateChanged(before, left::countDown);
    provider.made.set(List.of(two));
    assertThat(left.await(10, TimeUnit.SECONDS)).as("the channel left its connection to one").isTrue();
    assertThat(who(channel)).as("after the resolver moved the service").isEqualTo("two");
    assertThat(provider.made.resolutions.get()).as("resolutions: the first, the change, the reconnect's")
        .isGreaterThanOrEqualTo(3);
  }

  @Test
  void nameResolverFactoryResolvesAnyTarget() throws Exception {
    InetSocketAddress one = server("one");
    SettableProvider factory = new SettableProvider("custom", List.of(one));
    @SuppressWarnings("deprecation")
    ManagedChannel channel = TernChannelBuilder.forTarget("service.internal:443").nameResolverFactory(factory)
        .transports("tcp").usePlaintext().build();
    channels.add(channel);
    assertThat(who(channel)).isEqualTo("one");
    assertThat(channel.authority()).isEqualTo("who.test");
  }

  @Test
  void aSchemeNoResolverKnowsIsRefusedAtTheBuilder() {
    assertThatThrownBy(() -> TernChannelBuilder.forTarget("nosuchscheme://somewhere/svc"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("nosuchscheme").hasMessageContaining("NameResolverProvider");
  }

  @Test
  @SuppressWarnings("deprecation")
  void nameResolverFactoryOnAnAddressChannelIsAnError() {
    assertThatThrownBy(() -> TernChannelBuilder.forAddress(new InetSocketAddress("127.0.0.1", 1))
        .nameResolverFactory(new SettableProvider("x", List.of())))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("forTarget");
  }

  @AfterEach
  void stop() throws InterruptedException {
    for (NameResolverProvider p : registered) {
      NameResolverRegistry.getDefaultRegistry().deregister(p);
    }
    for (ManagedChannel c : channels) {
      c.shutdownNow();
      assertThat(c.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    for (Server s : servers) {
      s.shutdownNow();
      assertThat(s.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }
}
