package dev.tern.bench.stack;

import dev.tern.rpc.TernCallOptions;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernChannels;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.spi.TlsSettings;
import dev.tern.rpc.spi.TransportProvider;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/**
 * Tern as an application that names no transport: the channel takes {@link TernChannelBuilder}'s
 * default preference, and the server listens on {@code tcp} and {@code quic} at the same port
 * number (TCP first, port 0 picks it; QUIC then binds the same number on UDP). What carried a call
 * is read back with {@link TernChannels#selectedTransport}.
 */
public final class AutoStack implements RpcStack {
  /** The stack's name in results and on the command line. */
  public static final String NAME = "auto";
  /** The transports the server listens on, in the order it binds them. */
  static final List<String> SERVER_TRANSPORTS = List.of("tcp", "quic");

  /** The transports the server listens on (the channel may pick any of them). */
  public static List<String> serverTransports() {
    return SERVER_TRANSPORTS;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public boolean isAvailable() {
    return unavailableReason() == null;
  }

  @Override
  public String unavailableReason() {
    List<String> missing = new ArrayList<>(SERVER_TRANSPORTS);
    for (TransportProvider p : ServiceLoader.load(TransportProvider.class)) {
      if (p.isAvailable()) {
        missing.remove(p.name());
      }
    }
    return missing.isEmpty() ? null : "needs the transports " + missing + " on the class path and available";
  }

  @Override
  public Server startServer(InetSocketAddress bind, ServerServiceDefinition service, TlsMaterial tls)
      throws IOException {
    Server first = build(bind, service, tls, List.of(SERVER_TRANSPORTS.get(0)));
    int port = ((InetSocketAddress) first.getListenSockets().get(0)).getPort();
    if (bind.getPort() != 0) {
      return first;
    }
    // Port 0 is chosen by TCP; every transport must then share that number, so build again on it.
    first.shutdownNow();
    try {
      first.awaitTermination(5, java.util.concurrent.TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while rebinding", e);
    }
    return build(new InetSocketAddress(bind.getAddress(), port), service, tls, SERVER_TRANSPORTS);
  }

  private static Server build(InetSocketAddress bind, ServerServiceDefinition service, TlsMaterial tls,
      List<String> transports) throws IOException {
    TernServerBuilder b = TernServerBuilder.create().addService(service);
    for (String t : transports) {
      b.listen(t, bind);
    }
    if (tls != null) {
      b.tls(TlsSettings.forServer(tls.certificatePem(), tls.privateKeyPem()));
    }
    return b.build().start();
  }

  @Override
  public ManagedChannel newChannel(String host, int port, TlsMaterial tls) {
    TernChannelBuilder b = TernChannelBuilder.forAddress(host, port);
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

  /** The transport that carries {@code channel}'s connection now, or null while it has none. */
  public static String carrier(ManagedChannel channel) {
    return TernChannels.selectedTransport(channel);
  }
}
