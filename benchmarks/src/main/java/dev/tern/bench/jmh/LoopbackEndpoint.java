package dev.tern.bench.jmh;

import dev.tern.bench.service.BenchService;
import dev.tern.bench.stack.GrpcNettyStack;
import dev.tern.bench.stack.RpcStack;
import dev.tern.bench.stack.RpcStacks;
import dev.tern.bench.stack.TlsMaterial;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/** A server and a channel to it on 127.0.0.1, over one stack. */
final class LoopbackEndpoint implements AutoCloseable {
  final Server server;
  final ManagedChannel channel;

  /**
   * A server and channel over {@code stackName}.
   *
   * @param plaintext whether the HTTP/2-over-TCP stacks ({@code grpc-netty}, {@code tcp}) go without
   *     TLS; the others always encrypt ({@code quic} has TLS 1.3, {@code udp} its Noise handshake)
   */
  LoopbackEndpoint(String stackName, boolean plaintext) throws IOException {
    RpcStack stack = RpcStacks.byName(stackName);
    if (!stack.isAvailable()) {
      throw new IllegalStateException("stack " + stackName + " is not available: " + stack.unavailableReason());
    }
    boolean http2OverTcp = stackName.equals(GrpcNettyStack.NAME) || stackName.equals("tcp");
    TlsMaterial tls = plaintext && http2OverTcp ? null : TlsMaterial.generate();
    server = stack.startServer(new InetSocketAddress("127.0.0.1", 0), new BenchService().definition(), tls);
    channel = stack.newChannel("127.0.0.1", ((InetSocketAddress) server.getListenSockets().get(0)).getPort(), tls);
  }

  @Override
  public void close() throws InterruptedException {
    channel.shutdownNow();
    channel.awaitTermination(5, TimeUnit.SECONDS);
    server.shutdownNow();
    server.awaitTermination(5, TimeUnit.SECONDS);
  }
}
