package dev.tern.samples.hello;

import dev.tern.rpc.TernServerBuilder;
import dev.tern.transport.udp.rpc.UdpTransportOptions;
import io.grpc.Server;
import java.net.InetSocketAddress;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The hello-world server: the {@link GreeterService} on a Tern server over TCP (plaintext), or
 * over Tern's own UDP protocol with {@code --udp}, whose server authenticates with a static key
 * the client pins: kept in {@code --key-file} (made on the first start) and printed as hex for
 * the client's {@code --server-key}.
 */
@Command(name = "hello-server", mixinStandardHelpOptions = true,
    description = "Serves the greeter over TCP, or over Tern's UDP protocol with --udp.")
public final class HelloServer implements Callable<Integer> {
  @Option(names = "--host", description = "Address to listen on. Default ${DEFAULT-VALUE}.")
  String host = "127.0.0.1";

  @Option(names = "--port", description = "Port to listen on (0: any free port). Default ${DEFAULT-VALUE}.")
  int port = 50051;

  @Option(names = "--udp", description = "Serve over Tern's UDP protocol instead of TCP.")
  boolean udp;

  @Option(names = "--key-file", description = "With --udp: the server's private key, made if missing."
      + " Default ${DEFAULT-VALUE}.")
  java.nio.file.Path keyFile = java.nio.file.Path.of("hello-server.key");

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

  /**
   * Starts a greeter server on {@code host:port} over Tern's UDP protocol, authenticating with
   * {@code serverKey} (32 bytes, {@link UdpTransportOptions#newServerKey()}).
   */
  public static Server startUdp(String host, int port, byte[] serverKey) throws Exception {
    return TernServerBuilder.create()
        .listen("udp", new InetSocketAddress(host, port))
        .transportOption(UdpTransportOptions.SERVER_STATIC_KEY, serverKey)
        .addService(new GreeterService())
        .build()
        .start();
  }

  /** The key in {@code file}, or a new one written there (owner-readable only where the OS allows). */
  static byte[] loadOrCreateKey(java.nio.file.Path file) throws java.io.IOException {
    if (java.nio.file.Files.exists(file)) {
      byte[] key = java.nio.file.Files.readAllBytes(file);
      if (key.length != 32) {
        throw new java.io.IOException(file + " holds " + key.length + " bytes, not a 32-byte server key");
      }
      return key;
    }
    byte[] key = UdpTransportOptions.newServerKey();
    java.nio.file.Files.write(file, key);
    try {
      java.nio.file.Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
    } catch (UnsupportedOperationException e) {
      // not a POSIX file system: the file keeps the default permissions
    }
    return key;
  }

  /** Lower-case hex, as {@code HelloClient --server-key} takes it. */
  static String hex(byte[] bytes) {
    StringBuilder b = new StringBuilder(bytes.length * 2);
    for (byte x : bytes) {
      b.append(Character.forDigit((x >> 4) & 0xf, 16)).append(Character.forDigit(x & 0xf, 16));
    }
    return b.toString();
  }

  @Override
  public Integer call() throws Exception {
    Server server;
    if (udp) {
      byte[] key = loadOrCreateKey(keyFile);
      server = startUdp(host, port, key);
      System.out.println("Greeter listening on " + server.getListenSockets() + " (udp); clients pin"
          + " --server-key " + hex(UdpTransportOptions.publicKeyOf(key)));
    } else {
      server = start(host, port);
      System.out.println("Greeter listening on " + server.getListenSockets() + " (tcp, plaintext)");
    }
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
