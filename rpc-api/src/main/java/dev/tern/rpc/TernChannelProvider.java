package dev.tern.rpc;

import io.grpc.ChannelCredentials;
import io.grpc.ManagedChannelBuilder;
import io.grpc.ManagedChannelProvider;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Collection;
import java.util.Collections;
import java.util.List;

/**
 * Lets {@code Grpc.newChannelBuilder(target, credentials)} and {@code
 * ManagedChannelBuilder.forTarget(target)} build Tern channels, registered through {@code
 * META-INF/services/io.grpc.ManagedChannelProvider} as grpc-java's transports are.
 *
 * <p>Its {@linkplain #PRIORITY priority} is 2, below grpc-netty's 5 and grpc-okhttp's 3, so adding Tern to a class
 * path that has grpc-netty does not take that application's channels over by accident: grpc-java
 * picks Tern through these entry points only when no higher-priority transport is present. Build
 * with {@link TernChannelBuilder} to use Tern whatever else is on the class path.
 */
public final class TernChannelProvider extends ManagedChannelProvider {
  /**
   * grpc-java picks the available provider with the highest priority: grpc-netty's (and
   * grpc-netty-shaded's) is 5, grpc-okhttp's 3 for channels (8 on Android) and 4 for servers.
   */
  public static final int PRIORITY = 2;

  /** Created by {@link java.util.ServiceLoader}. */
  public TernChannelProvider() {}

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
   * A Tern channel builder for {@code host} and {@code port}, as {@link
   * TernChannelBuilder#forAddress(String, int)}.
   *
   * @param name the host
   * @param port the port, 1..65535
   * @return a new {@link TernChannelBuilder}
   * @throws IllegalArgumentException if {@code port} is outside 1..65535
   */
  @Override
  public ManagedChannelBuilder<?> builderForAddress(String name, int port) {
    return TernChannelBuilder.forAddress(name, port);
  }

  /**
   * A Tern channel builder for {@code target}, as {@link TernChannelBuilder#forTarget(String)}.
   *
   * @param target {@code host:port}, optionally after {@code dns:///}
   * @return a new {@link TernChannelBuilder}
   * @throws IllegalArgumentException if {@code target} is not one {@code host:port}
   */
  @Override
  public ManagedChannelBuilder<?> builderForTarget(String target) {
    return TernChannelBuilder.forTarget(target);
  }

  /**
   * A Tern channel builder for {@code target} secured by {@code credentials}, as {@link
   * TernChannelBuilder#forTarget(String, ChannelCredentials)}; a target or credentials Tern cannot
   * use give an error result naming them, which {@code Grpc.newChannelBuilder} reports.
   *
   * @param target {@code host:port}, optionally after {@code dns:///}
   * @param credentials {@code TlsChannelCredentials} (PEM, key and trust managers) or {@code
   *     InsecureChannelCredentials}
   * @return the builder, or an error saying why Tern cannot build this channel
   */
  @Override
  public NewChannelBuilderResult newChannelBuilder(String target, ChannelCredentials credentials) {
    try {
      return NewChannelBuilderResult.channelBuilder(TernChannelBuilder.forTarget(target, credentials));
    } catch (IllegalArgumentException | NullPointerException e) {
      return NewChannelBuilderResult.error("Tern: " + e.getMessage());
    }
  }

  /**
   * Tern resolves {@code host:port} targets to IP socket addresses.
   *
   * @return {@code InetSocketAddress} only
   */
  @Override
  public Collection<Class<? extends SocketAddress>> getSupportedSocketAddressTypes() {
    return Collections.singletonList(InetSocketAddress.class);
  }
}
