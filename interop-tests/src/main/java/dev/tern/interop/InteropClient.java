package dev.tern.interop;

import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernChannels;
import dev.tern.rpc.spi.TlsSettings;
import io.grpc.ManagedChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Tern's interop client: runs the standard cases with a Tern channel against any gRPC interop
 * server, with grpc's interop command line. Exits 0 when every case passed.
 */
@Command(name = "tern-interop-client", mixinStandardHelpOptions = true,
    description = "Runs gRPC interop cases with a Tern channel.")
public final class InteropClient implements Callable<Integer> {
  @Option(names = "--transport", description = "Transport to use. Default ${DEFAULT-VALUE}.")
  String transport = "tcp";

  @Option(names = "--server_host", description = "Server host. Default ${DEFAULT-VALUE}.")
  String serverHost = "localhost";

  @Option(names = "--server_port", description = "Server port. Default ${DEFAULT-VALUE}.")
  int serverPort = 8080;

  @Option(names = "--server_host_override", description = "Name expected in the server's certificate.")
  String serverHostOverride;

  @Option(names = "--test_case", split = ",",
      description = "Cases to run, by standard name, or 'all'. Default ${DEFAULT-VALUE}.")
  List<String> testCases = List.of("empty_unary");

  @Option(names = "--use_tls", arity = "1", description = "Whether to use TLS. Default ${DEFAULT-VALUE}.")
  boolean useTls;

  @Option(names = "--ca_file", description = "PEM certificates to trust with --use_tls=true (default: the JDK's).")
  Path caFile;

  /** Runs the cases and exits 0 if all passed, 1 otherwise. */
  public static void main(String[] args) {
    System.exit(new CommandLine(new InteropClient()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    List<InteropCase> cases = new ArrayList<>();
    for (String name : testCases) {
      if (name.equals("all")) {
        cases.addAll(InteropCase.withProbes());
      } else {
        cases.add(InteropCase.fromName(name));
      }
    }
    ManagedChannel channel = channel();
    int failed = 0;
    try {
      InteropClientCases runner = new InteropClientCases(channel);
      for (InteropCase c : cases) {
        long start = System.nanoTime();
        try {
          runner.run(c);
          System.out.printf("PASS %s (%d ms)%n", c.caseName(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        } catch (Exception | AssertionError e) {
          failed++;
          System.out.printf("FAIL %s: %s%n", c.caseName(), e);
        }
      }
      System.out.println("Connection: " + TernChannels.connectionInfo(channel));
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    System.out.printf("%d passed, %d failed%n", cases.size() - failed, failed);
    return failed == 0 ? 0 : 1;
  }

  ManagedChannel channel() throws Exception {
    TernChannelBuilder builder = TernChannelBuilder.forAddress(serverHost, serverPort).transports(transport);
    if (useTls) {
      TlsSettings tls = TlsSettings.forClient(caFile == null ? null : Files.readAllBytes(caFile));
      builder.tls(serverHostOverride == null ? tls : tls.withServerNameOverride(serverHostOverride));
    } else {
      builder.usePlaintext();
    }
    return builder.build();
  }
}
