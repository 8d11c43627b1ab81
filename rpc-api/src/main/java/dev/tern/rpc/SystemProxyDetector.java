package dev.tern.rpc;

import io.grpc.HttpConnectProxiedSocketAddress;
import io.grpc.ProxiedSocketAddress;
import io.grpc.ProxyDetector;
import java.io.IOException;
import java.net.Authenticator;
import java.net.InetSocketAddress;
import java.net.PasswordAuthentication;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.SocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;

/**
 * The proxy detector a channel uses when its builder is given none, as grpc-java's default: the
 * JVM's {@link ProxySelector} is asked for an {@code https://host:port} URI of the target, and its
 * first HTTP proxy carries the connection by HTTP CONNECT (RFC 9110 §9.3.6), with the credentials
 * the JVM's {@link Authenticator} gives for it. With no proxy configured ({@code https.proxyHost}
 * unset, no {@code ProxySelector} installed) it finds none and the channel connects directly.
 */
final class SystemProxyDetector implements ProxyDetector {
  static final SystemProxyDetector INSTANCE = new SystemProxyDetector();

  private SystemProxyDetector() {}

  @Override
  public ProxiedSocketAddress proxyFor(SocketAddress target) throws IOException {
    if (!(target instanceof InetSocketAddress)) {
      return null;
    }
    ProxySelector selector = ProxySelector.getDefault();
    if (selector == null) {
      return null;
    }
    InetSocketAddress t = (InetSocketAddress) target;
    URI uri;
    try {
      uri = new URI("https", null, t.getHostString(), t.getPort(), null, null, null);
    } catch (URISyntaxException e) {
      return null; // a host no URI can name is not one a proxy is configured for
    }
    List<Proxy> proxies = selector.select(uri);
    for (Proxy p : proxies) {
      if (p.type() != Proxy.Type.HTTP || !(p.address() instanceof InetSocketAddress)) {
        continue;
      }
      InetSocketAddress proxy = (InetSocketAddress) p.address();
      if (proxy.isUnresolved()) {
        // Runs on the channel's offload executor: resolving the proxy may block.
        proxy = new InetSocketAddress(proxy.getHostString(), proxy.getPort());
      }
      HttpConnectProxiedSocketAddress.Builder b = HttpConnectProxiedSocketAddress.newBuilder()
          .setTargetAddress(t).setProxyAddress(proxy);
      PasswordAuthentication auth = Authenticator.requestPasswordAuthentication(proxy.getHostString(),
          proxy.getAddress(), proxy.getPort(), "http", "", null, uri.toURL(), Authenticator.RequestorType.PROXY);
      if (auth != null) {
        b.setUsername(auth.getUserName()).setPassword(new String(auth.getPassword()));
      }
      return b.build();
    }
    return null;
  }
}
