package dev.tern.bench.stack;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.net.InetSocketAddress;

/** Stock grpc-java on its Netty transport, with no Tern code: the reference every result is read against. */
public final class GrpcNettyStack implements RpcStack {
  /** The stack's name. */
  public static final String NAME = "grpc-netty";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public boolean isAvailable() {
    return true;
  }

  @Override
  public String unavailableReason() {
    return null;
  }

  @Override
  public Server startServer(InetSocketAddress bind, ServerServiceDefinition service) throws IOException {
    return NettyServerBuilder.forAddress(bind).addService(service).build().start();
  }

  @Override
  public ManagedChannel newChannel(String host, int port) {
    return NettyChannelBuilder.forAddress(host, port).usePlaintext().build();
  }

  @Override
  public CallOptions withPriority(CallOptions base, int urgency, boolean incremental) {
    return base;
  }
}
