package dev.tern.rpc.guice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.Key;
import com.google.inject.TypeLiteral;
import dev.tern.rpc.TernChannels;
import dev.tern.rpc.spi.TransportProvider;
import io.grpc.BindableService;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A server and a channel from injectors configured by properties, over real TCP on loopback. */
@Timeout(60)
class TernModuleTest {
  private static final MethodDescriptor.Marshaller<String> UTF8 = new MethodDescriptor.Marshaller<>() {
    @Override
    public InputStream stream(String value) {
      return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String parse(InputStream stream) {
      try {
        return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  };
  private static final MethodDescriptor<String, String> HELLO = MethodDescriptor.<String, String>newBuilder()
      .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName("test.Greeter/Hello")
      .setRequestMarshaller(UTF8).setResponseMarshaller(UTF8).build();

  /** A service the application binds: Guice makes it and injects what it needs. */
  static final class Greeter implements BindableService {
    @Override
    public ServerServiceDefinition bindService() {
      return ServerServiceDefinition.builder("test.Greeter")
          .addMethod(HELLO, ServerCalls.asyncUnaryCall((name, out) -> {
            out.onNext("hello " + name);
            out.onCompleted();
          }))
          .build();
    }
  }

  private static Properties props(String... keyValues) {
    Properties p = new Properties();
    for (int i = 0; i < keyValues.length; i += 2) {
      p.setProperty(keyValues[i], keyValues[i + 1]);
    }
    return p;
  }

  @Test
  void aServerFromAnInjectorAnswersAChannelFromAnother() throws Exception {
    Injector serverSide = Guice.createInjector(
        new TernModule(TernOptions.fromProperties(props("tern.server.listen.tcp", "127.0.0.1:0",
            "tern.plaintext", "true"), "tern.")),
        binder -> TernModule.services(binder).addBinding().to(Greeter.class));
    Set<TransportProvider> transports = serverSide.getInstance(Key.get(new TypeLiteral<Set<TransportProvider>>() {}));
    assertThat(transports).extracting(TransportProvider::name).contains("tcp");

    Server server = serverSide.getInstance(Server.class).start();
    assertThat(serverSide.getInstance(Server.class)).as("a singleton").isSameAs(server);
    try {
      Injector clientSide = Guice.createInjector(new TernModule(TernOptions.fromProperties(props(
          "tern.channel.target", "127.0.0.1:" + server.getPort(), "tern.channel.transports", "tcp",
          "tern.plaintext", "true"), "tern.")));
      ManagedChannel channel = clientSide.getInstance(ManagedChannel.class);
      try {
        assertThat(ClientCalls.blockingUnaryCall(channel, HELLO,
            CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS), "guice")).isEqualTo("hello guice");
        assertThat(TernChannels.selectedTransport(channel)).isEqualTo("tcp");
      } finally {
        channel.shutdownNow();
        assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      }
    } finally {
      server.shutdownNow();
      assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  /** Configurers set what the options do not carry: here each side's message size limit. */
  @Test
  void configurersSetWhatTheOptionsDoNotCarry() throws Exception {
    Injector serverSide = Guice.createInjector(
        new TernModule(TernOptions.newBuilder().listen("tcp", new java.net.InetSocketAddress("127.0.0.1", 0))
            .plaintext(true).build()),
        binder -> {
          TernModule.services(binder).addBinding().to(Greeter.class);
          TernModule.serverConfigurers(binder).addBinding().toInstance(b -> b.maxInboundMessageSize(16));
        });
    Server server = serverSide.getInstance(Server.class).start();
    try {
      Injector clientSide = Guice.createInjector(new TernModule(TernOptions.newBuilder()
          .target("127.0.0.1:" + server.getPort()).transports("tcp").plaintext(true).build()),
          binder -> TernModule.channelConfigurers(binder).addBinding().toInstance(b -> b.maxInboundMessageSize(12)));
      ManagedChannel channel = clientSide.getInstance(ManagedChannel.class);
      try {
        CallOptions o = CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS);
        assertThat(ClientCalls.blockingUnaryCall(channel, HELLO, o, "guice")).isEqualTo("hello guice");
        assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(channel, HELLO, o, "seventeen letters"))
            .as("a request over the server's 16 bytes").isInstanceOf(io.grpc.StatusRuntimeException.class)
            .hasMessageStartingWith("RESOURCE_EXHAUSTED");
        assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(channel, HELLO, o, "thirteen"))
            .as("a response over the channel's 12 bytes").isInstanceOf(io.grpc.StatusRuntimeException.class)
            .hasMessageStartingWith("RESOURCE_EXHAUSTED");
      } finally {
        channel.shutdownNow();
        assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      }
    } finally {
      server.shutdownNow();
      assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void badConfigurationIsRefusedNamingTheKey() {
    assertThatThrownBy(() -> TernOptions.fromProperties(props("tern.server.listen.tcp", "nowhere"), "tern."))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("tern.server.listen.tcp: 'nowhere' is not host:port");
    assertThatThrownBy(() -> TernOptions.fromProperties(props("tern.plaintext", "yes"), "tern."))
        .hasMessage("tern.plaintext: 'yes' is not true or false");
    assertThatThrownBy(() -> TernOptions.fromProperties(props("tern.chanel.target", "a:1"), "tern."))
        .hasMessageStartingWith("tern.chanel.target: unknown option");
    assertThatThrownBy(() -> Guice.createInjector(new TernModule(TernOptions.newBuilder().build()))
        .getInstance(ManagedChannel.class)).hasMessageContaining("TernOptions has no channel target");
  }
}
