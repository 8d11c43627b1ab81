package dev.tern.transport.bridge;

import io.grpc.Status;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.SocketAddress;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.channels.UnresolvedAddressException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import javax.net.ssl.SSLException;

/**
 * Says why a TCP connection failed, from the status grpc-okhttp gives (its description is often only
 * a short phrase; the reason is in the cause chain): refused, unreachable, unresolvable, timed out,
 * or which part of the TLS handshake failed.
 */
public final class ConnectFailures {
  private ConnectFailures() {}

  /**
   * One sentence naming {@code address} and the reason in {@code status}.
   *
   * @param transport the transport's name, which starts the sentence
   * @param address the server's address
   * @param authority the authority the channel was made for (the name the certificate must carry)
   * @param status grpc-java's status for the failed connection
   * @return the sentence
   */
  public static String describe(String transport, SocketAddress address, String authority, Status status) {
    String to = transport + " connection to " + hostPort(address);
    Throwable cause = status.getCause();
    if (cause == null) {
      return to + " failed: " + status.getCode()
          + (status.getDescription() == null ? "" : " (" + status.getDescription() + ")");
    }
    Throwable root = cause;
    SSLException tls = null;
    CertificateException certificate = null;
    boolean untrusted = false;
    for (Throwable t = cause; t != null; t = t.getCause() == t ? null : t.getCause()) {
      root = t;
      if (t instanceof SSLException && tls == null) {
        tls = (SSLException) t;
      }
      if (t instanceof CertificateException && certificate == null) {
        certificate = (CertificateException) t;
      }
      untrusted |= t instanceof CertPathBuilderException || t instanceof CertPathValidatorException;
    }
    String raw = root.getClass().getSimpleName() + ": " + root.getMessage();
    if (tls != null || certificate != null) {
      Throwable shown = tls != null ? tls : certificate;
      return to + " failed in the TLS handshake: " + tlsReason(authority, tls, certificate, untrusted,
          shown.getClass().getSimpleName() + ": " + shown.getMessage());
    }
    // Before ConnectException: Netty's connect timeout is one (OkHttp's is a SocketTimeoutException).
    if (root instanceof SocketTimeoutException || root.getClass().getSimpleName().equals("ConnectTimeoutException")) {
      return to + " failed: connect timed out (the host does not answer; the handshake timeout bounds it): " + raw;
    }
    if (root instanceof ConnectException) {
      return to + " failed: connection refused (nothing listens on that port, or a firewall rejects it): " + raw;
    }
    if (root instanceof UnknownHostException || root instanceof UnresolvedAddressException) {
      return to + " failed: the host name cannot be resolved: " + raw;
    }
    if (root instanceof NoRouteToHostException) {
      return to + " failed: no route to the host: " + raw;
    }
    return to + " failed: " + (status.getDescription() == null ? "" : status.getDescription() + ": ") + raw;
  }

  private static String tlsReason(String authority, SSLException tls, CertificateException certificate,
      boolean untrusted, String raw) {
    String text = (tls == null ? "" : String.valueOf(tls.getMessage())) + " "
        + (certificate == null ? "" : String.valueOf(certificate.getMessage()));
    if (untrusted || text.contains("PKIX") || text.contains("unable to find valid certification path")) {
      return "the server's certificate is not trusted (its issuer is not among the trusted certificates; for a"
          + " private CA or a self-signed certificate set them with TernTls.newBuilder().trustManager(...)): " + raw;
    }
    if (text.contains("No subject alternative") || text.contains("No name matching")) {
      return "the server's certificate is not for '" + hostOf(authority) + "' (its names do not match; use the"
          + " name on the certificate as the target, or TernTls.newBuilder().serverNameOverride(name)): " + raw;
    }
    if (text.contains("certificate_required") || text.contains("bad_certificate")
        || text.contains("certificate_unknown")) {
      return "the server refused this client's certificate (mutual TLS: present one the server trusts with"
          + " TernTls.newBuilder().keyManager(...)): " + raw;
    }
    if (text.contains("ALPN") || text.contains("no_application_protocol")) {
      return "the server does not speak HTTP/2 over TLS (ALPN h2): " + raw;
    }
    if (text.contains("plaintext connection") || text.contains("not an SSL/TLS record")) {
      return "the server does not speak TLS on this port (use usePlaintext() if it is a plaintext server): " + raw;
    }
    return raw;
  }

  private static String hostPort(SocketAddress address) {
    if (address instanceof InetSocketAddress) {
      InetSocketAddress a = (InetSocketAddress) address;
      String host = a.getHostString();
      return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + a.getPort();
    }
    return String.valueOf(address);
  }

  private static String hostOf(String authority) {
    int colon = authority.lastIndexOf(':');
    String h = colon > 0 && authority.indexOf(']') < colon ? authority.substring(0, colon) : authority;
    return h.startsWith("[") && h.endsWith("]") ? h.substring(1, h.length() - 1) : h;
  }
}
