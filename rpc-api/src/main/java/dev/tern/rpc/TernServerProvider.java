package dev.tern.rpc;

import io.grpc.ServerBuilder;
import io.grpc.ServerCredentials;
import io.grpc.ServerProvider;

/**
 * Lets {@code Grpc.newServerBuilderForPort(port, credentials)} and {@code ServerBuilder.forPort(port)}
 * build Tern servers (listening with TCP), registered through {@code
 * META-INF/services/io.grpc.ServerProvider} as grpc-java's transports are.
 *
 * <p>Its {@linkplain #PRIORITY priority} is 2, below grpc-netty's 5 and grpc-okhttp's 3, so Tern does not take over
 * the servers of an application that also has grpc-netty on its class path; build with {@link
 * TernServerBuilder} to use Tern (and its other transports) whatever else is there.
 */
public final class TernServerProvider extends ServerProvider {
  /**
   * grpc-java picks the available provider with the highest priority: grpc-netty's (and
   * grpc-netty-shaded's) is 5, grpc-okhttp's 3 for channels (8 on Android) and 4 for servers.
   */
  public static final int PRIORITY = 2;

  /** Created by {@link java.util.ServiceLoader}. */
  public TernServerProvider() {}

  /**
   * Always true: the call layer needs nothing from the platform (each transport says for itself).
   *
   * @return true
   */
  @Override
  public boolean isAvailable() {
    return true;
  }

  /**
   * {@value #PRIORITY}, below every grpc-java transport's.
   *
   * @return {@value #PRIORITY}
   */
  @Override
  public int priority() {
    return PRIORITY;
  }

  /**
   * A Tern server builder listening with TCP on {@code port}, as {@link
   * TernServerBuilder#forPort(int)}.
   *
   * @param port the TCP port, 0..65535 (0: any free port)
   * @return a new {@link TernServerBuilder}
   * @throws IllegalArgumentException if {@code port} is outside 0..65535
   */
  @Override
  public ServerBuilder<?> builderForPort(int port) {
    return TernServerBuilder.forPort(port);
  }

  /**
   * A Tern server builder listening with TCP on {@code port}, secured by {@code credentials}, as
   * {@link TernServerBuilder#forPort(int, ServerCredentials)}; a port or credentials Tern cannot
   * use give an error result naming them, which {@code Grpc.newServerBuilderForPort} reports.
   *
   * @param port the TCP port, 0..65535 (0: any free port)
   * @param credentials {@code TlsServerCredentials} (PEM or a key manager, optional trust for
   *     mutual TLS) or {@code InsecureServerCredentials}
   * @return the builder, or an error saying why Tern cannot build this server
   */
  @Override
  public NewServerBuilderResult newServerBuilderForPort(int port, ServerCredentials credentials) {
    try {
      return NewServerBuilderResult.serverBuilder(TernServerBuilder.forPort(port, credentials));
    } catch (IllegalArgumentException | NullPointerException e) {
      return NewServerBuilderResult.error("Tern: " + e.getMessage());
    }
  }
}
