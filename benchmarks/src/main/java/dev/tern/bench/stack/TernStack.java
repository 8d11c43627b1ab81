package dev.tern.bench.stack;

import dev.tern.rpc.TernCallOptions;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.spi.TlsSettings;
import dev.tern.rpc.spi.TransportProvider;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * Tern's public API ({@link TernServerBuilder}, {@link TernChannelBuilder}) pinned to one transport,
 * chosen by its provider's name; nothing here knows the transport's classes.
 */
final class TernStack implements RpcStack {
  private final TransportProvider provider;

  TernStack(TransportProvider provider) {
    this.provider = provider;
  }

  @Override
  public String name() {
    return provider.name();
  }

  @Override
  public boolean isAvailable() {
    return provider.isAvailable();
  }

  @Override
  public String unavailableReason() {
    return provider.unavailableReason();
  }

  @Override
  public Server startServer(InetSocketAddress bind, ServerServiceDefinition service, TlsMaterial tls)
      throws IOException {
    TernServerBuilder b = TernServerBuilder.create().listen(name(), bind).addService(service);
    if (tls != null) {
      b.tls(TlsSettings.forServer(tls.certificatePem(), tls.privateKeyPem()));
    }
    return b.build().start();
  }

  @Override
  public ManagedChannel newChannel(String host, int port, TlsMaterial tls) {
    TernChannelBuilder b = TernChannelBuilder.forAddress(host, port).transports(name());
    if (tls == null) {
      b.usePlaintext();
    } else {
      b.tls(TlsSettings.forClient(tls.certificatePem()).withServerNameOverride(TlsMaterial.SERVER_NAME));
    }
    return b.build();
  }

  @Override
  public CallOptions withPriority(CallOptions base, int urgency, boolean incremental) {
    return TernCallOptions.withPriority(base, urgency, incremental);
  }
}
