package com.example.greeter;

import com.example.greeter.proto.GreeterGrpc;
import com.example.greeter.proto.HelloRequest;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernChannels;
import dev.tern.rpc.TernTls;
import dev.tern.transport.udp.rpc.UdpTransportOptions;
import io.grpc.ManagedChannel;
import java.io.File;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;

/**
 * Calls the greeter over TLS.
 *
 * <p>Usage: {@code GreeterClient HOST PORT TRUSTED.pem [TRANSPORT [UDP-PIN]]}; with no transport
 * named the channel races QUIC against TCP and keeps the first one ready. Over {@code udp} the
 * port is the {@code udp} transport's and the pin is the server key's public half, in hex, as the
 * server prints it.
 */
public final class GreeterClient {
  private GreeterClient() {}

  /**
   * A channel to the greeter.
   *
   * @param host the server's host name, as its certificate names it
   * @param port the server's port
   * @param trust the certificates to trust
   * @param transport {@code "tcp"}, {@code "quic"}, or {@code null} to let the channel choose
   * @return a channel; shut it down when done
   */
  public static ManagedChannel channel(String host, int port, TernTls trust, String transport) {
    return channel(host, port, trust, transport, null);
  }

  /**
   * As {@link #channel(String, int, TernTls, String)}, pinning the {@code udp} server key.
   *
   * @param udpPin the public key of the server's {@code udp} key, which the {@code udp} transport
   *     authenticates the server by; null without {@code udp}
   * @return a channel; shut it down when done
   */
  public static ManagedChannel channel(String host, int port, TernTls trust, String transport,
      byte[] udpPin) {
    TernChannelBuilder builder = TernChannelBuilder.forAddress(host, port).tls(trust);
    if (transport != null) {
      builder.transports(transport);
    }
    if (udpPin != null) {
      builder.transportOption(UdpTransportOptions.PINNED_SERVER_KEY, udpPin);
    }
    return builder.build();
  }

  /**
   * Says hello once.
   *
   * @param channel the channel to call on
   * @param name who to greet
   * @return the server's reply
   */
  public static String sayHello(ManagedChannel channel, String name) {
    return GreeterGrpc.newBlockingStub(channel)
        .withDeadlineAfter(10, TimeUnit.SECONDS)
        .sayHello(HelloRequest.newBuilder().setName(name).build())
        .getMessage();
  }

  /**
   * Says hello and prints the reply and the transport that carried it.
   *
   * @param args the host, the port, the trusted certificates file (PEM) and, optionally, the
   *     transport and the {@code udp} server key's pin
   * @throws Exception when the call fails
   */
  public static void main(String[] args) throws Exception {
    if (args.length < 3 || args.length > 5) {
      System.err.println("usage: GreeterClient HOST PORT TRUSTED.pem [tcp|quic|udp [UDP-PIN]]");
      System.exit(2);
    }
    TernTls trust = TernTls.newBuilder().trustManager(new File(args[2])).build();
    ManagedChannel channel = channel(args[0], Integer.parseInt(args[1]), trust,
        args.length >= 4 ? args[3] : null, args.length == 5 ? HexFormat.of().parseHex(args[4]) : null);
    try {
      System.out.println(sayHello(channel, "world") + " (over "
          + TernChannels.connectionInfo(channel).transport() + ")");
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
