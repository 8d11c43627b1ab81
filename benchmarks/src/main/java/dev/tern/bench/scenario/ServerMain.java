package dev.tern.bench.scenario;

import dev.tern.bench.service.BenchService;
import dev.tern.bench.stack.RpcStack;
import dev.tern.bench.stack.RpcStacks;
import dev.tern.bench.stack.TlsMaterial;
import io.grpc.Server;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The benchmark's server process: serves {@link BenchService} on one stack, prints {@code LISTENING
 * <port>} and runs until its standard input ends or reads {@code quit}; answers {@code stats} with a {@link ServerStats} line.
 */
public final class ServerMain {
  private ServerMain() {}

  /** Arguments: {@code --stack NAME --bind HOST [--port N] [--tls-dir DIR]} (no TLS directory: plaintext). */
  public static void main(String[] argv) throws Exception {
    Args args = new Args(argv);
    RpcStack stack = RpcStacks.byName(args.get("stack"));
    if (!stack.isAvailable()) {
      System.out.println("UNAVAILABLE " + stack.unavailableReason());
      System.exit(3);
    }
    String tlsDir = args.get("tls-dir", "");
    TlsMaterial tls = tlsDir.isEmpty() ? null : TlsMaterial.readFrom(Path.of(tlsDir));
    Server server = stack.startServer(
        new InetSocketAddress(args.get("bind"), args.getInt("port", 0)), new BenchService().definition(), tls);
    int port = ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
    System.out.println("LISTENING " + port);
    System.out.flush();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null && !line.trim().equals("quit")) {
      // "stats" samples this process for the scale scenario; only "quit" or the end of input stops the server.
      if (line.trim().equals("stats")) {
        System.out.println(ServerStats.sample().toLine());
        System.out.flush();
      }
    }
    // The run is over: no call is left worth finishing, so do not wait for connections to drain.
    // grpc-netty's event loops may take seconds more to wind down; the process exits regardless.
    server.shutdownNow();
    server.awaitTermination(1, TimeUnit.SECONDS);
    System.exit(0);
  }
}
