package dev.tern.bench.stack;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import javax.net.ssl.SSLException;

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
  public Server startServer(InetSocketAddress bind, ServerServiceDefinition service, TlsMaterial tls)
      throws IOException {
    NettyServerBuilder b = NettyServerBuilder.forAddress(bind).addService(service);
    if (tls != null) {
      b.sslContext(GrpcSslContexts.forServer(new ByteArrayInputStream(tls.certificatePem()),
          new ByteArrayInputStream(tls.privateKeyPem())).build());
    }
    return b.build().start();
  }

  @Override
  public ManagedChannel newChannel(String host, int port, TlsMaterial tls) {
    NettyChannelBuilder b = NettyChannelBuilder.forAddress(host, port);
    if (tls == null) {
      return b.usePlaintext().build();
    }
    try {
      return b.sslContext(GrpcSslContexts.forClient()
              .trustManager(new ByteArrayInputStream(tls.certificatePem())).build())
          .overrideAuthority(TlsMaterial.SERVER_NAME + ":" + port).build();
    } catch (SSLException e) {
      throw new IllegalStateException("cannot build the client TLS context", e);
    }
  }

  @Override
  public CallOptions withPriority(CallOptions base, int urgency, boolean incremental) {
    return base;
  }
}
