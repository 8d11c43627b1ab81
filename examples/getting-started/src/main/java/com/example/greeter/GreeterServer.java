package com.example.greeter;

import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.TernTls;
import io.grpc.Server;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;

/**
 * Serves the greeter over TCP and QUIC on one port number (TCP and UDP), with TLS.
 *
 * <p>Usage: {@code GreeterServer PORT KEYSTORE.p12 PASSWORD}.
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
  public static Server start(int port, TernTls tls) throws IOException {
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
   * The server's TLS settings from a key store, as {@code keytool -genkeypair} writes it.
   *
   * @param keyStoreFile a PKCS#12 key store holding one private key and its certificate chain
   * @param password the key store's password (also the key's)
   * @return the settings for {@link #start}
   * @throws IOException when the file cannot be read
   * @throws java.security.GeneralSecurityException when it is not a key store or the password is wrong
   */
  public static TernTls serverTls(Path keyStoreFile, char[] password)
      throws IOException, java.security.GeneralSecurityException {
    KeyStore keyStore = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(keyStoreFile)) {
      keyStore.load(in, password);
    }
    return TernTls.newBuilder().keyManager(keyStore, password).build();
  }

  /**
   * Runs the server until the process is stopped.
   *
   * @param args the port, the PKCS#12 key store with the server's key and certificate, and its
   *     password
   * @throws Exception when the server cannot start
   */
  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: GreeterServer PORT KEYSTORE.p12 PASSWORD");
      System.exit(2);
    }
    Server server = start(Integer.parseInt(args[0]), serverTls(Path.of(args[1]), args[2].toCharArray()));
    System.out.println("greeter listening on " + server.getListenSockets());
    Runtime.getRuntime().addShutdownHook(new Thread(server::shutdown));
    server.awaitTermination();
  }
}
