package com.example.greeter;

import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.spi.TlsSettings;
import io.grpc.Server;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Serves the greeter over TCP and QUIC on one port number (TCP and UDP), with TLS.
 *
 * <p>Usage: {@code GreeterServer PORT CERT.pem KEY.pem}.
 */
public final class GreeterServer {
  private GreeterServer() {}

  /**
   * Starts a server for the greeter, grpc-java's health service and server reflection.
   *
   * @param port the TCP and UDP port; 0 picks a free TCP port and uses its number for UDP too
   * @param tls the server's certificate chain and private key
   * @return the started server
   * @throws IOException when a port cannot be bound
   */
  public static Server start(int port, TlsSettings tls) throws IOException {
    if (port == 0) {
      // The QUIC socket takes the number the TCP socket was given, so a client that names no
      // transport finds both on one port.
      Server tcp = TernServerBuilder.create().listen("tcp", new InetSocketAddress("127.0.0.1", 0))
          .tls(tls).addService(new GreeterService()).build().start();
      int chosen = ((InetSocketAddress) tcp.getListenSockets().get(0)).getPort();
      tcp.shutdownNow();
      port = chosen;
    }
    return TernServerBuilder.create()
        .listen("tcp", new InetSocketAddress(port))
        .listen("quic", new InetSocketAddress(port))
        .tls(tls)
        .addService(new GreeterService())
        .addService(new HealthStatusManager().getHealthService())
        .addService(ProtoReflectionServiceV1.newInstance())
        .build()
        .start();
  }

  /**
   * Runs the server until the process is stopped.
   *
   * @param args the port, the certificate chain file and the private key file (PEM)
   * @throws Exception when the server cannot start
   */
  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: GreeterServer PORT CERT.pem KEY.pem");
      System.exit(2);
    }
    TlsSettings tls = TlsSettings.forServer(Files.readAllBytes(Path.of(args[1])),
        Files.readAllBytes(Path.of(args[2])));
    Server server = start(Integer.parseInt(args[0]), tls);
    System.out.println("greeter listening on " + server.getListenSockets());
    Runtime.getRuntime().addShutdownHook(new Thread(server::shutdown));
    server.awaitTermination();
  }
}
