package dev.tern.rpc;

import dev.tern.rpc.spi.ConnectionAttributes;
import dev.tern.rpc.spi.ServerStream;
import io.grpc.Attributes;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.SecurityLevel;
import io.grpc.ServerStreamTracer;
import io.grpc.Status;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/** The server's view of one call ({@link io.grpc.ServerCall}) on an SPI {@link ServerStream}. */
final class TernServerCall<ReqT, RespT> extends io.grpc.ServerCall<ReqT, RespT> {
  private final ServerStream stream;
  private final MethodDescriptor<ReqT, RespT> method;
  private final String authority;
  private final List<String> acceptedEncodings;
  private final List<ServerStreamTracer> tracers;
  private final ServerConfig cfg;
  private final SecurityLevel securityLevel;
  private final Attributes attributes;
  private final String selectedVersion;
  /** The {@code alt-svc} value for the response headers, or null (none, or not over TLS). */
  private final String advertisement;
  private volatile boolean cancelled;
  private volatile Status closeStatus;
  private boolean headersSent;
  private boolean closeCalled;
  private String compression;
  private int outboundSeq;
  private final AtomicBoolean tracersClosed = new AtomicBoolean();

  TernServerCall(ServerStream stream, MethodDescriptor<ReqT, RespT> method, String authority,
      List<String> acceptedEncodings, List<ServerStreamTracer> tracers, ServerConfig cfg,
      SecurityLevel securityLevel, ConnectionInfo info, String selectedVersion, boolean earlyData,
      Attributes transportAttributes, String advertisement) {
    this.stream = stream;
    this.method = method;
    this.authority = authority;
    this.acceptedEncodings = acceptedEncodings;
    this.tracers = tracers;
    this.cfg = cfg;
    // From the connection, as grpc-java's server call reports it: the level its transport stated,
    // else TLS when the connection has a TLS session.
    SecurityLevel stated = transportAttributes.get(ConnectionAttributes.SECURITY_LEVEL);
    this.securityLevel = stated != null ? stated
        : info.sslSession() != null ? SecurityLevel.PRIVACY_AND_INTEGRITY : securityLevel;
    this.selectedVersion = selectedVersion;
    // Advertised only on connections the client can authenticate the server on: it learns keys
    // from it, and ignores the field over plaintext anyway.
    this.advertisement = this.securityLevel == SecurityLevel.PRIVACY_AND_INTEGRITY ? advertisement : null;
    // The connection's attributes as the transport filters left them, plus the call's own.
    this.attributes = transportAttributes.toBuilder().set(TernServerCalls.EARLY_DATA_ATTR, earlyData).build();
  }

  void markCancelled() {
    cancelled = true;
  }

  /**
   * Tells the tracers the call ended with {@code status}, once: when the application closes the
   * call (before the trailers leave, as grpc-java's server streams report it, so the report comes
   * before the client can see the end and start its next call), or when the stream completes or
   * is cancelled first.
   */
  void closeTracers(Status status) {
    if (tracersClosed.compareAndSet(false, true)) {
      for (ServerStreamTracer t : tracers) {
        t.streamClosed(status);
      }
    }
  }

  /** The status the application closed with, or null. */
  Status closeStatus() {
    return closeStatus;
  }

  @Override
  public void request(int numMessages) {
    if (numMessages > 0) {
      stream.request(numMessages);
    }
  }

  @Override
  public synchronized void sendHeaders(Metadata headers) {
    if (headersSent) {
      throw new IllegalStateException("sendHeaders has already been called");
    }
    if (closeCalled) {
      throw new IllegalStateException("call is closed");
    }
    headersSent = true;
    Metadata md = new Metadata();
    md.merge(headers);
    if (selectedVersion != null) {
      md.put(ProtocolVersions.SELECTED_KEY, selectedVersion);
    }
    if (advertisement != null && !md.containsKey(AltSvc.KEY)) {
      md.put(AltSvc.KEY, advertisement);
    }
    if (compression != null && acceptedEncodings.contains(compression)) {
      stream.setMessageCompression(compression);
    }
    stream.writeHeaders(md);
  }

  @Override
  public void sendMessage(RespT message) {
    synchronized (this) {
      if (!headersSent) {
        throw new IllegalStateException("sendHeaders has not been called");
      }
      if (closeCalled) {
        throw new IllegalStateException("call is closed");
      }
    }
    byte[] bytes;
    try (InputStream in = method.streamResponse(message)) {
      bytes = Marshalling.toBytes(in);
    } catch (IOException | RuntimeException e) {
      stream.cancel(Status.INTERNAL.withDescription("failed to marshal the response of "
          + method.getFullMethodName()).withCause(e));
      return;
    }
    int seq = outboundSeq++;
    for (ServerStreamTracer t : tracers) {
      t.outboundMessage(seq);
      t.outboundUncompressedSize(bytes.length);
      t.outboundWireSize(bytes.length);
      t.outboundMessageSent(seq, bytes.length, bytes.length);
    }
    stream.writeMessage(ByteBuffer.wrap(bytes));
    stream.flush();
  }

  @Override
  public boolean isReady() {
    return !cancelled && stream.isReady();
  }

  @Override
  public void close(Status status, Metadata trailers) {
    synchronized (this) {
      if (closeCalled) {
        throw new IllegalStateException("call already closed");
      }
      closeCalled = true;
    }
    closeStatus = status;
    Metadata md = new Metadata();
    md.merge(trailers);
    if (selectedVersion != null && !headersSent) {
      md.put(ProtocolVersions.SELECTED_KEY, selectedVersion);
    }
    closeTracers(status);
    stream.close(status, md);
  }

  @Override
  public boolean isCancelled() {
    return cancelled;
  }

  /** Per-message opt-out is not offered by the SPI: every message of a call uses its encoding. */
  @Override
  public void setMessageCompression(boolean enabled) {}

  /**
   * Compresses responses with {@code compressorName} if the client accepts it.
   *
   * @throws IllegalArgumentException if the server's compressor registry has no such compressor
   */
  @Override
  public synchronized void setCompression(String compressorName) {
    if (headersSent) {
      throw new IllegalStateException("setCompression must be called before sendHeaders");
    }
    if (cfg.compressors.lookupCompressor(compressorName) == null) {
      throw new IllegalArgumentException("unable to find a compressor named '" + compressorName + "'");
    }
    compression = compressorName;
  }

  @Override
  public SecurityLevel getSecurityLevel() {
    return securityLevel;
  }

  @Override
  public Attributes getAttributes() {
    return attributes;
  }

  @Override
  public String getAuthority() {
    return authority;
  }

  @Override
  public MethodDescriptor<ReqT, RespT> getMethodDescriptor() {
    return method;
  }
}
