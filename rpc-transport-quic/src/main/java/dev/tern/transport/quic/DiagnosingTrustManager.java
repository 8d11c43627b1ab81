package dev.tern.transport.quic;

import java.net.Socket;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.util.Map;
import java.util.WeakHashMap;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Delegates to the real trust manager and remembers, per TLS engine, why it rejected a server's
 * certificate. BoringSSL (under quiche) turns any rejection into {@code CERTIFICATE_VERIFY_FAILED};
 * the connection that failed asks {@link #explain} for the JDK's reason instead.
 */
final class DiagnosingTrustManager extends X509ExtendedTrustManager {
  private final X509ExtendedTrustManager delegate;
  /** Weak: an engine whose connection never asks is forgotten with it. */
  private final Map<SSLEngine, CertificateException> rejected = new WeakHashMap<>();

  DiagnosingTrustManager(X509ExtendedTrustManager delegate) {
    this.delegate = delegate;
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    try {
      delegate.checkServerTrusted(chain, authType, engine);
    } catch (CertificateException e) {
      synchronized (rejected) {
        rejected.put(engine, e);
      }
      throw e;
    }
  }

  /**
   * Why the certificate offered on {@code engine} was rejected, in words a user can act on, or null
   * if it was not (the handshake failed for another reason). Forgets it.
   *
   * @param serverName the name the certificate had to carry
   */
  String explain(SSLEngine engine, String serverName) {
    CertificateException e;
    synchronized (rejected) {
      e = rejected.remove(engine);
    }
    if (e == null) {
      return null;
    }
    return describe(e, serverName);
  }

  static String describe(CertificateException e, String serverName) {
    String detail = e.getClass().getSimpleName() + ": " + e.getMessage();
    boolean untrusted = false;
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      untrusted |= t instanceof CertPathBuilderException || t instanceof CertPathValidatorException;
    }
    String text = String.valueOf(e.getMessage());
    if (e instanceof CertificateExpiredException || e instanceof CertificateNotYetValidException) {
      return "the server's certificate is outside its validity period (" + detail + ")";
    }
    if (text.contains("No subject alternative") || text.contains("No name matching")) {
      return "the server's certificate is not for '" + serverName + "' (its names do not match; use the name on"
          + " the certificate as the target, or TernTls.newBuilder().serverNameOverride(name)): " + detail;
    }
    if (untrusted || text.contains("PKIX")) {
      return "the server's certificate is not trusted (its issuer is not among the trusted certificates; for a"
          + " private CA or a self-signed certificate set them with TernTls.newBuilder().trustManager(...)): " + detail;
    }
    return "the server's certificate was rejected: " + detail;
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
    delegate.checkServerTrusted(chain, authType, socket);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
    delegate.checkServerTrusted(chain, authType);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    delegate.checkClientTrusted(chain, authType, engine);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
    delegate.checkClientTrusted(chain, authType, socket);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
    delegate.checkClientTrusted(chain, authType);
  }

  @Override
  public X509Certificate[] getAcceptedIssuers() {
    return delegate.getAcceptedIssuers();
  }
}
