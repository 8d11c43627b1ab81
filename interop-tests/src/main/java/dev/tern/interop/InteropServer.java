package dev.tern.interop;

import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.spi.TlsSettings;
import io.grpc.Server;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Tern's interop server: the {@code grpc.testing.TestService} on a Tern server, with grpc's
 * interop command line, so any gRPC implementation's interop client can be pointed at it.
 */
@Command(name = "tern-interop-server", mixinStandardHelpOptions = true,
    description = "Serves grpc.testing.TestService with Tern.")
public final class InteropServer implements Callable<Integer> {
  @Option(names = "--port", description = "Port to listen on (0: any free port). Default ${DEFAULT-VALUE}.")
  int port = 8080;

  @Option(names = "--host", description = "Address to listen on. Default ${DEFAULT-VALUE}.")
  String host = "127.0.0.1";

  @Option(names = "--transport", split = ",",
      description = "Transports to listen with, on the same port number. Default ${DEFAULT-VALUE}.")
  List<String> transports = List.of("tcp");

  @Option(names = "--use_tls", arity = "1", description = "Whether to use TLS. Default ${DEFAULT-VALUE}.")
  boolean useTls;

  @Option(names = "--tls_cert_file", description = "PEM certificate chain, with --use_tls=true.")
  Path certificateFile;

  @Option(names = "--tls_key_file", description = "PEM PKCS#8 private key, with --use_tls=true.")
  Path keyFile;

  /** Runs the server until the process is stopped. */
  public static void main(String[] args) {
    System.exit(new CommandLine(new InteropServer()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    Server server = start(scheduler);
    System.out.println("Server started on port " + server.getPort());
    System.out.println("Tern interop server listening on " + server.getListenSockets() + " with " + transports);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      server.shutdown();
      try {
        server.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      scheduler.shutdownNow();
    }, "tern-interop-server-shutdown"));
    server.awaitTermination();
    return 0;
  }

  Server start(ScheduledExecutorService scheduler) throws Exception {
    if (port < 0 || port > 65535) {
      throw new CommandLine.ParameterException(new CommandLine(this), "--port must be in 0..65535, was " + port);
    }
    TernServerBuilder builder = TernServerBuilder.create().addService(TernTestService.definition(scheduler));
    if (useTls) {
      if (certificateFile == null || keyFile == null) {
        throw new CommandLine.ParameterException(new CommandLine(this),
            "--use_tls=true needs --tls_cert_file and --tls_key_file");
      }
      builder.tls(TlsSettings.forServer(Files.readAllBytes(certificateFile), Files.readAllBytes(keyFile)));
    }
    SocketAddress address = new InetSocketAddress(host, port);
    for (String transport : transports) {
      builder.listen(transport, address);
    }
    return builder.build().start();
  }
}
