package com.example.greeter;

import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.TernTls;
import dev.tern.transport.udp.rpc.UdpTransportOptions;
import io.grpc.Server;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.HexFormat;

/**
 * Serves the greeter over TCP and QUIC on one port number (TCP and UDP), with TLS, and, given a
 * server key, over Tern's own UDP transport on the next port number.
 *
 * <p>Usage: {@code GreeterServer PORT KEYSTORE.p12 PASSWORD [UDP-KEY-FILE]}; a key file that does
 * not exist yet is created with a new key.
 */
public final class GreeterServer {
  private GreeterServer() {}

  /**
   * Starts a server for the greeter, grpc-java's health service and server reflection, over TCP
   * and QUIC.
   *
   * @param port the TCP and UDP port; 0 picks a free TCP port and uses its number for UDP too
   * @param tls the server's certificate chain and private key
   * @return the started server
   * @throws IOException when a port cannot be bound
   */
  public static Server start(int port, TernTls tls) throws IOException {
    return start(port, tls, -1, null);
  }

  /**
   * As {@link #start(int, TernTls)}, and over Tern's {@code udp} transport too when given its
   * key: it authenticates the server by this static key, which clients pin, not by the
   * certificate.
   *
   * @param udpPort the {@code udp} transport's UDP port (not QUIC's: two sockets cannot share
   *     one); 0 picks a free one
   * @param udpKey the server's 32-byte private key ({@code UdpTransportOptions.newServerKey()}),
   *     or null to serve no {@code udp}
   */
  public static Server start(int port, TernTls tls, int udpPort, byte[] udpKey) throws IOException {
    if (port == 0) {
      // The QUIC socket takes the number the TCP socket was given, so a client that names no
      // transport finds both on one port.
      Server tcp = TernServerBuilder.create().listen("tcp", new InetSocketAddress("127.0.0.1", 0))
          .tls(tls).addService(new GreeterService()).build().start();
      int chosen = ((InetSocketAddress) tcp.getListenSockets().get(0)).getPort();
      tcp.shutdownNow();
      port = chosen;
    }
    TernServerBuilder builder = TernServerBuilder.create()
        .listen("tcp", new InetSocketAddress(port))
        .listen("quic", new InetSocketAddress(port));
    if (udpKey != null) {
      builder.listen("udp", new InetSocketAddress(udpPort))
          .transportOption(UdpTransportOptions.SERVER_STATIC_KEY, udpKey);
    }
    return builder
        .tls(tls)
        .addService(new GreeterService())
        .addService(new HealthStatusManager().getHealthService())
        .addService(ProtoReflectionServiceV1.newInstance())
        .build()
        .start();
  }

  /**
   * The {@code udp} server key in {@code file}, created with a new key if the file does not exist.
   *
   * @param file the key file: the 32 bytes of the private key; keep it private
   * @return the key
   * @throws IOException when the file cannot be read or written, or does not hold 32 bytes
   */
  public static byte[] udpKey(Path file) throws IOException {
    if (!Files.exists(file)) {
      Files.write(file, UdpTransportOptions.newServerKey());
    }
    byte[] key = Files.readAllBytes(file);
    if (key.length != 32) {
      throw new IOException(file + " holds " + key.length + " bytes, not a 32-byte udp server key");
    }
    return key;
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
   * @param args the port, the PKCS#12 key store with the server's key and certificate, its
   *     password and, optionally, the file of the {@code udp} server key
   * @throws Exception when the server cannot start
   */
  public static void main(String[] args) throws Exception {
    if (args.length != 3 && args.length != 4) {
      System.err.println("usage: GreeterServer PORT KEYSTORE.p12 PASSWORD [UDP-KEY-FILE]");
      System.exit(2);
    }
    int port = Integer.parseInt(args[0]);
    byte[] udpKey = args.length == 4 ? udpKey(Path.of(args[3])) : null;
    Server server = start(port, serverTls(Path.of(args[1]), args[2].toCharArray()), port + 1, udpKey);
    System.out.println("greeter listening on " + server.getListenSockets());
    if (udpKey != null) {
      System.out.println("udp on port " + (port + 1) + ", server key to pin: "
          + HexFormat.of().formatHex(UdpTransportOptions.publicKeyOf(udpKey)));
    }
    Runtime.getRuntime().addShutdownHook(new Thread(server::shutdown));
    server.awaitTermination();
  }
}
