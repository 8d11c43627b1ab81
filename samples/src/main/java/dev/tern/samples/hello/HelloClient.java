package dev.tern.samples.hello;

import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernChannels;
import dev.tern.samples.hello.proto.GreeterGrpc;
import dev.tern.samples.hello.proto.HelloReply;
import dev.tern.samples.hello.proto.HelloRequest;
import dev.tern.transport.udp.rpc.UdpTransportOptions;
import io.grpc.ManagedChannel;
import java.util.Iterator;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The hello-world client: greets with the stock grpc-java stubs on a Tern channel, over TCP, or
 * over Tern's UDP protocol when given the server's key ({@code --server-key}, as the server
 * prints it).
 */
@Command(name = "hello-client", mixinStandardHelpOptions = true,
    description = "Calls the greeter over TCP, or over Tern's UDP protocol with --server-key.")
public final class HelloClient implements Callable<Integer> {
  @Option(names = "--host", description = "Server host. Default ${DEFAULT-VALUE}.")
  String host = "127.0.0.1";

  @Option(names = "--port", description = "Server port. Default ${DEFAULT-VALUE}.")
  int port = 50051;

  @Option(names = "--name", description = "Who to greet. Default ${DEFAULT-VALUE}.")
  String name = "world";

  @Option(names = "--times", description = "Greetings to stream as well. Default ${DEFAULT-VALUE}.")
  int times = 3;

  @Option(names = "--server-key", description = "The udp server's public key in hex: call over udp.")
  String serverKey;

  /** Greets and exits. */
  public static void main(String[] args) {
    System.exit(new CommandLine(new HelloClient()).execute(args));
  }

  /** A plaintext TCP channel to the greeter at {@code host:port}. */
  public static ManagedChannel channel(String host, int port) {
    return TernChannelBuilder.forAddress(host, port).transports("tcp").usePlaintext().build();
  }

  /** A channel over Tern's UDP protocol to the greeter at {@code host:port}, pinning {@code serverKey}. */
  public static ManagedChannel udpChannel(String host, int port, byte[] serverKey) {
    return TernChannelBuilder.forAddress(host, port).transports("udp")
        .transportOption(UdpTransportOptions.PINNED_SERVER_KEY, serverKey).build();
  }

  /** {@code hex} (64 hex digits) as the key's 32 bytes. */
  static byte[] unhex(String hex) {
    if (hex.length() != 64) {
      throw new IllegalArgumentException("--server-key must be 64 hex digits, got " + hex.length() + " characters");
    }
    byte[] out = new byte[32];
    for (int i = 0; i < 32; i++) {
      int hi = Character.digit(hex.charAt(2 * i), 16);
      int lo = Character.digit(hex.charAt(2 * i + 1), 16);
      if (hi < 0 || lo < 0) {
        throw new IllegalArgumentException("--server-key has a character that is not a hex digit at " + (2 * i));
      }
      out[i] = (byte) (hi << 4 | lo);
    }
    return out;
  }

  @Override
  public Integer call() throws Exception {
    ManagedChannel channel = serverKey == null ? channel(host, port) : udpChannel(host, port, unhex(serverKey));
    try {
      GreeterGrpc.GreeterBlockingStub greeter = GreeterGrpc.newBlockingStub(channel)
          .withDeadlineAfter(10, TimeUnit.SECONDS);
      HelloReply reply = greeter.sayHello(HelloRequest.newBuilder().setName(name).build());
      System.out.println(reply.getMessage());
      Iterator<HelloReply> stream = greeter.sayHelloStream(
          HelloRequest.newBuilder().setName(name).setTimes(times).build());
      while (stream.hasNext()) {
        System.out.println(stream.next().getMessage());
      }
      System.out.println("over " + TernChannels.connectionInfo(channel));
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    return 0;
  }
}
