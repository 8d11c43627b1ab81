package dev.tern.bench.stack;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * One way of running gRPC calls: stock grpc-java over Netty, or Tern over one of its transports.
 * Benchmarks see only grpc-java's public types through it, so every stack runs the same code.
 */
public interface RpcStack {

  /** The name used in results and on the command line: {@code grpc-netty}, {@code tcp}, {@code quic}... */
  String name();

  /** Whether the stack can run here; {@link #unavailableReason()} says why not. */
  boolean isAvailable();

  /** Why the stack cannot run here, or null. */
  String unavailableReason();

  /**
   * Starts a server for {@code service} on {@code bind} (port 0 picks one), with TLS presenting
   * {@code tls}, or in plaintext when {@code tls} is null.
   */
  Server startServer(InetSocketAddress bind, ServerServiceDefinition service, TlsMaterial tls) throws IOException;

  /**
   * A new channel (and so a new connection) to {@code host:port}: with TLS trusting exactly {@code
   * tls}'s certificate and expecting {@link TlsMaterial#SERVER_NAME}, or in plaintext when null.
   */
  ManagedChannel newChannel(String host, int port, TlsMaterial tls);

  /**
   * Call options carrying a priority (urgency 0-7, RFC 9218 §4); stacks without priorities return
   * {@code base} unchanged.
   */
  CallOptions withPriority(CallOptions base, int urgency, boolean incremental);
}
