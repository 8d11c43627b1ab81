package dev.tern.samples.hello;

import dev.tern.rpc.TernServerBuilder;
import io.grpc.Server;
import java.net.InetSocketAddress;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** The hello-world server: the {@link GreeterService} on a Tern server over TCP (plaintext). */
@Command(name = "hello-server", mixinStandardHelpOptions = true, description = "Serves the greeter over TCP.")
public final class HelloServer implements Callable<Integer> {
  @Option(names = "--host", description = "Address to listen on. Default ${DEFAULT-VALUE}.")
  String host = "127.0.0.1";

  @Option(names = "--port", description = "Port to listen on (0: any free port). Default ${DEFAULT-VALUE}.")
  int port = 50051;

  /** Runs the server until the process is stopped. */
  public static void main(String[] args) {
    System.exit(new CommandLine(new HelloServer()).execute(args));
  }

  /** Starts a greeter server on {@code host:port} over TCP. */
  public static Server start(String host, int port) throws Exception {
    return TernServerBuilder.create()
        .listen("tcp", new InetSocketAddress(host, port))
        .addService(new GreeterService())
        .build()
        .start();
  }

  @Override
  public Integer call() throws Exception {
    Server server = start(host, port);
    System.out.println("Greeter listening on " + server.getListenSockets() + " (tcp, plaintext)");
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      server.shutdown();
      try {
        server.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "hello-server-shutdown"));
    server.awaitTermination();
    return 0;
  }
}
