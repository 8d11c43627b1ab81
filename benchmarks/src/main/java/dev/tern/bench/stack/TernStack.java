package dev.tern.bench.stack;

import dev.tern.rpc.TernCallOptions;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.spi.TlsSettings;
import dev.tern.rpc.spi.TransportProvider;
import dev.tern.transport.udp.congestion.CongestionControl;
import dev.tern.transport.udp.rpc.UdpTransportOptions;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * Tern's public API ({@link TernServerBuilder}, {@link TernChannelBuilder}) pinned to one transport,
 * chosen by its provider's name. The one transport-specific step: {@code udp} authenticates its
 * server by a static X25519 key the client pins (docs/protocol.md) rather than by the certificate,
 * so both sides derive that key from the run's TLS material (SHA-256 of its private key), which
 * the server and the client processes both read.
 */
final class TernStack implements RpcStack {
  private final TransportProvider provider;
  /** The {@code udp} transport's congestion controller on both sides; null: its default. */
  private final CongestionControl udpCc;

  TernStack(TransportProvider provider, CongestionControl udpCc) {
    this.provider = provider;
    this.udpCc = udpCc;
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
    if (isUdp()) {
      b.transportOption(UdpTransportOptions.SERVER_STATIC_KEY, udpServerKey(tls));
      if (udpCc != null) {
        b.transportOption(UdpTransportOptions.CONGESTION_CONTROL, udpCc);
      }
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
    if (isUdp()) {
      b.transportOption(UdpTransportOptions.PINNED_SERVER_KEY, UdpTransportOptions.publicKeyOf(udpServerKey(tls)));
      if (udpCc != null) {
        b.transportOption(UdpTransportOptions.CONGESTION_CONTROL, udpCc);
      }
    }
    return b.build();
  }

  private boolean isUdp() {
    return "udp".equals(name());
  }

  /** The udp server's static key for this run: derived from the run's TLS key, so both processes agree. */
  static byte[] udpServerKey(TlsMaterial tls) {
    if (tls == null) {
      throw new IllegalArgumentException("the udp variant needs the run's TLS material (it always encrypts)");
    }
    try {
      return java.security.MessageDigest.getInstance("SHA-256").digest(tls.privateKeyPem());
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  @Override
  public CallOptions withPriority(CallOptions base, int urgency, boolean incremental) {
    return TernCallOptions.withPriority(base, urgency, incremental);
  }
}
