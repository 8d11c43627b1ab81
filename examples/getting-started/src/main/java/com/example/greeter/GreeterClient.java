package com.example.greeter;

import com.example.greeter.proto.GreeterGrpc;
import com.example.greeter.proto.HelloRequest;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernChannels;
import dev.tern.rpc.TernTls;
import io.grpc.ManagedChannel;
import java.io.File;
import java.util.concurrent.TimeUnit;

/**
 * Calls the greeter over TLS.
 *
 * <p>Usage: {@code GreeterClient HOST PORT TRUSTED.pem [TRANSPORT]}; with no transport named the
 * channel races QUIC against TCP and keeps the first one ready.
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
    TernChannelBuilder builder = TernChannelBuilder.forAddress(host, port).tls(trust);
    if (transport != null) {
      builder.transports(transport);
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
   *     transport
   * @throws Exception when the call fails
   */
  public static void main(String[] args) throws Exception {
    if (args.length < 3 || args.length > 4) {
      System.err.println("usage: GreeterClient HOST PORT TRUSTED.pem [tcp|quic]");
      System.exit(2);
    }
    TernTls trust = TernTls.newBuilder().trustManager(new File(args[2])).build();
    ManagedChannel channel = channel(args[0], Integer.parseInt(args[1]), trust,
        args.length == 4 ? args[3] : null);
    try {
      System.out.println(sayHello(channel, "world") + " (over "
          + TernChannels.connectionInfo(channel).transport() + ")");
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
