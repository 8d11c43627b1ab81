package dev.tern.samples.hello;

import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernChannels;
import dev.tern.samples.hello.proto.GreeterGrpc;
import dev.tern.samples.hello.proto.HelloReply;
import dev.tern.samples.hello.proto.HelloRequest;
import io.grpc.ManagedChannel;
import java.util.Iterator;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** The hello-world client: greets over TCP with the stock grpc-java stubs on a Tern channel. */
@Command(name = "hello-client", mixinStandardHelpOptions = true, description = "Calls the greeter over TCP.")
public final class HelloClient implements Callable<Integer> {
  @Option(names = "--host", description = "Server host. Default ${DEFAULT-VALUE}.")
  String host = "127.0.0.1";

  @Option(names = "--port", description = "Server port. Default ${DEFAULT-VALUE}.")
  int port = 50051;

  @Option(names = "--name", description = "Who to greet. Default ${DEFAULT-VALUE}.")
  String name = "world";

  @Option(names = "--times", description = "Greetings to stream as well. Default ${DEFAULT-VALUE}.")
  int times = 3;

  /** Greets and exits. */
  public static void main(String[] args) {
    System.exit(new CommandLine(new HelloClient()).execute(args));
  }

  /** A plaintext TCP channel to the greeter at {@code host:port}. */
  public static ManagedChannel channel(String host, int port) {
    return TernChannelBuilder.forAddress(host, port).transports("tcp").usePlaintext().build();
  }

  @Override
  public Integer call() throws Exception {
    ManagedChannel channel = channel(host, port);
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
