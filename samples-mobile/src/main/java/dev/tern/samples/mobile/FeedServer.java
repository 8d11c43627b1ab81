package dev.tern.samples.mobile;

import com.google.inject.Guice;
import com.google.inject.Key;
import com.google.inject.multibindings.OptionalBinder;
import dev.tern.rpc.TernTls;
import dev.tern.rpc.guice.ServerTls;
import dev.tern.rpc.guice.TernModule;
import dev.tern.rpc.guice.TernOptions;
import dev.tern.transport.okhttp.OkHttpTransportProvider;
import dev.tern.transport.udp.rpc.UdpTransportOptions;
import dev.tern.transport.udp.rpc.UdpTransportProvider;
import io.grpc.Server;
import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The feed's server, for the sample client to call: {@code udp} and {@code okhttp} (gRPC over
 * HTTP/2 on TCP, TLS) on the same port number, as a production server would offer both. It is
 * wired with Guice ({@code rpc-guice}'s {@link TernModule}): the listen addresses come from {@link
 * TernOptions}, the TLS certificate is bound {@link ServerTls}, the feed is one of the module's
 * services, and what the options do not carry (the {@code udp} key, the keep-alive policy) is set
 * by a {@code ServerConfigurer}. The server half is not part of the client app: the app's jar
 * leaves it out.
 *
 * <p>Usage: {@code FeedServer PORT CERT.pem KEY.pem UDP-KEY-FILE [BIND-ADDRESS]} (loopback by
 * default). The {@code udp} key file is created on first run (32 random bytes); the server prints
 * the pin a client needs.
 */
public final class FeedServer {
  private FeedServer() {}

  /**
   * Starts the feed on {@code port}, over {@code udp} and {@code okhttp} unless {@code transports}
   * names fewer.
   *
   * @param bind the address to listen on
   * @param port the port of every listener (UDP and TCP ports are apart: one number serves both)
   * @param tls the certificate and key of the {@code okhttp} listener
   * @param udpKey the {@code udp} server's 32-byte private key
   * @param transports the transports to listen with; none: both
   * @return the started server
   * @throws IOException if a listener cannot bind
   */
  public static Server start(InetAddress bind, int port, TernTls tls, byte[] udpKey, String... transports)
      throws IOException {
    List<String> listen = transports.length == 0
        ? Arrays.asList(UdpTransportProvider.NAME, OkHttpTransportProvider.NAME) : Arrays.asList(transports);
    TernOptions.Builder options = TernOptions.newBuilder();
    for (String t : listen) {
      options.listen(t, new InetSocketAddress(bind, port));
    }
    Server server = Guice.createInjector(new TernModule(options.build()), binder -> {
      TernModule.services(binder).addBinding().toInstance(new FeedService());
      OptionalBinder.newOptionalBinder(binder, Key.get(TernTls.class, ServerTls.class)).setBinding().toInstance(tls);
      TernModule.serverConfigurers(binder).addBinding().toInstance(b -> b
          .transportOption(UdpTransportOptions.SERVER_STATIC_KEY, udpKey)
          // Clients may keep a quiet call's connection alive with a PING every 5 s or more
          // (grpc-java's servers refuse more than one per 5 minutes unless told).
          .permitKeepAliveTime(5, TimeUnit.SECONDS));
    }).getInstance(Server.class);
    return server.start();
  }

  /** Reads the key file, or creates it with a new key. */
  static byte[] udpKey(Path file) throws IOException {
    if (Files.exists(file)) {
      return Files.readAllBytes(file);
    }
    byte[] key = UdpTransportOptions.newServerKey();
    Files.write(file, key);
    return key;
  }

  /**
   * Serves until the process is stopped.
   *
   * @param args the port, the certificate and key files (PEM), the {@code udp} key file and,
   *     optionally, the address to listen on
   * @throws Exception if the server cannot start
   */
  public static void main(String[] args) throws Exception {
    if (args.length != 4 && args.length != 5) {
      System.err.println("usage: FeedServer PORT CERT.pem KEY.pem UDP-KEY-FILE [BIND-ADDRESS]");
      System.exit(2);
    }
    byte[] key = udpKey(Paths.get(args[3]));
    InetAddress bind = args.length == 5 ? InetAddress.getByName(args[4]) : InetAddress.getLoopbackAddress();
    Server server = start(bind, Integer.parseInt(args[0]),
        TernTls.newBuilder().keyManager(new File(args[1]), new File(args[2])).build(), key);
    System.out.println("feed server on " + server.getListenSockets() + "; udp pin "
        + Base64.getEncoder().encodeToString(UdpTransportOptions.publicKeyOf(key)));
    server.awaitTermination();
  }
}
