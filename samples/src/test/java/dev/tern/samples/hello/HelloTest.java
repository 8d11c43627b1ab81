package dev.tern.samples.hello;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.rpc.TernChannels;
import dev.tern.samples.hello.proto.GreeterGrpc;
import dev.tern.samples.hello.proto.HelloReply;
import dev.tern.samples.hello.proto.HelloRequest;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class HelloTest {
  private Server server;
  private ManagedChannel channel;
  private GreeterGrpc.GreeterBlockingStub greeter;

  @BeforeEach
  void start() throws Exception {
    server = HelloServer.start("127.0.0.1", 0);
    channel = HelloClient.channel("127.0.0.1", server.getPort());
    greeter = GreeterGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws InterruptedException {
    channel.shutdownNow();
    server.shutdownNow();
    assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void greetsOverTcp() {
    assertThat(greeter.sayHello(HelloRequest.newBuilder().setName("Ada").build()).getMessage())
        .isEqualTo("Hello, Ada!");
    assertThat(TernChannels.connectionInfo(channel).transport()).isEqualTo("tcp");
  }

  @Test
  void greetsOverUdpWithTheServersKeyPinned(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    java.nio.file.Path keyFile = dir.resolve("server.key");
    byte[] key = HelloServer.loadOrCreateKey(keyFile);
    assertThat(HelloServer.loadOrCreateKey(keyFile)).as("the key is kept across starts").isEqualTo(key);
    Server udp = HelloServer.startUdp("127.0.0.1", 0, key);
    byte[] pin = HelloClient.unhex(HelloServer.hex(dev.tern.transport.udp.rpc.UdpTransportOptions.publicKeyOf(key)));
    ManagedChannel over = HelloClient.udpChannel("127.0.0.1", udp.getPort(), pin);
    try {
      GreeterGrpc.GreeterBlockingStub g = GreeterGrpc.newBlockingStub(over).withDeadlineAfter(10, TimeUnit.SECONDS);
      assertThat(g.sayHello(HelloRequest.newBuilder().setName("Ada").build()).getMessage()).isEqualTo("Hello, Ada!");
      assertThat(TernChannels.connectionInfo(over).transport()).isEqualTo("udp");
    } finally {
      over.shutdownNow();
      udp.shutdownNow();
      assertThat(over.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      assertThat(udp.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void streamsAsManyGreetingsAsAsked() {
    List<String> messages = new ArrayList<>();
    greeter.sayHelloStream(HelloRequest.newBuilder().setName("Ada").setTimes(3).build())
        .forEachRemaining((HelloReply r) -> messages.add(r.getMessage()));
    assertThat(messages).containsExactly("Hello #1, Ada!", "Hello #2, Ada!", "Hello #3, Ada!");
  }

  @Test
  void anEmptyNameIsAnInvalidArgumentThatSaysWhy() {
    assertThatThrownBy(() -> greeter.sayHello(HelloRequest.getDefaultInstance()))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
          assertThat(e.getStatus().getDescription()).contains("name");
        });
  }
}
