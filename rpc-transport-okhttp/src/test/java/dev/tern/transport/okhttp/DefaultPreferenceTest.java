package dev.tern.transport.okhttp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernChannels;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.TransportMemory;
import dev.tern.rpc.TransportSelector;
import dev.tern.rpc.spi.TransportProvider;
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
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Where grpc-netty's transport ({@code tcp}) is not on the class path, as on a phone, a channel
 * that names no transport uses {@code okhttp} as its TCP transport. This module's test class path
 * has neither {@code tcp} nor a datagram transport.
 */
@Timeout(60)
class DefaultPreferenceTest {
  private static final MethodDescriptor.Marshaller<String> UTF8 = new MethodDescriptor.Marshaller<String>() {
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
  private static final MethodDescriptor<String, String> ECHO = MethodDescriptor.<String, String>newBuilder()
      .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName("test.Echo/Echo")
      .setRequestMarshaller(UTF8).setResponseMarshaller(UTF8).build();

  @Test
  void theDefaultPreferenceRacesOkHttpAsTheTcpTransportWhenTcpIsAbsent() {
    TransportSelector selector = TransportSelector.fromServiceLoader(Collections.emptyList());
    assertThat(selector.provider("tcp")).as("grpc-netty's transport on this class path").isNull();
    List<String> names = new ArrayList<>();
    for (TransportProvider p : selector.candidates("127.0.0.1:1", TransportMemory.builder().build())) {
      names.add(p.name());
    }
    assertThat(names).containsExactly("okhttp");
  }

  @Test
  void aChannelThatNamesNoTransportCallsOverOkHttp() throws Exception {
    ServerServiceDefinition echo = ServerServiceDefinition.builder("test.Echo")
        .addMethod(ECHO, ServerCalls.asyncUnaryCall((String request, io.grpc.stub.StreamObserver<String> out) -> {
          out.onNext("echo:" + request);
          out.onCompleted();
        })).build();
    Server server = TernServerBuilder.create().listen("okhttp", new InetSocketAddress("127.0.0.1", 0))
        .addService(echo).build().start();
    ManagedChannel channel = TernChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
    try {
      assertThat(ClientCalls.blockingUnaryCall(channel, ECHO, CallOptions.DEFAULT, "hi")).isEqualTo("echo:hi");
      assertThat(TernChannels.connectionInfo(channel).transport()).isEqualTo("okhttp");
    } finally {
      channel.shutdownNow();
      server.shutdownNow();
      assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }
}
