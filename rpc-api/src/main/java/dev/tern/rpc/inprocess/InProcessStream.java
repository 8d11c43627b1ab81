package dev.tern.rpc.inprocess;

import dev.tern.rpc.ConnectionInfo;
import dev.tern.rpc.spi.ClientStream;
import dev.tern.rpc.spi.ClientStreamListener;
import dev.tern.rpc.spi.GrpcMessageFraming;
import dev.tern.rpc.spi.RequestHeaders;
import dev.tern.rpc.spi.SerializingExecutor;
import dev.tern.rpc.spi.ServerStream;
import dev.tern.rpc.spi.ServerStreamListener;
import dev.tern.rpc.spi.TransportEvents;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.ByteBuffer;

/**
 * One call between an in-process client and server: two {@link Pipe}s and the state of both ends.
 * Every change happens under this object's lock; listener calls are queued, in order, on each
 * side's serializing executor while the lock is held, and run after it is released.
 */
final class InProcessStream {
  private static final Metadata.Key<String> USER_AGENT =
      Metadata.Key.of("user-agent", Metadata.ASCII_STRING_MARSHALLER);
  /** The in-process transport's part of the {@code user-agent} it sends. */
  static final String OWN_USER_AGENT = "tern-inprocess";

  private final int clientMaxMetadataSize;
  private final int serverMaxMetadataSize;
  private final InProcessClientTransport transport;
  private final RequestHeaders headers;
  private final ClientStreamListener clientListener;
  private volatile ServerStreamListener serverListener;
  private final SerializingExecutor clientEvents = new SerializingExecutor(InProcessExecutor.get());
  private final SerializingExecutor serverEvents = new SerializingExecutor(InProcessExecutor.get());
  private final InProcessServerTransport server;
  private final Pipe toServer;
  private final Pipe toClient;
  private final Client client = new Client();
  private final Server serverSide = new Server();
  /** Where each side's transport reports bytes and resets (the metrics). */
  private final TransportEvents clientEventSink;
  private final TransportEvents serverEventSink;
  private String responseEncoding;
  private boolean headersSent;
  private boolean clientClosed;
  private boolean serverClosed;
  private Status pendingStatus;
  private Metadata pendingTrailers;
  private boolean clientCallbacksDone;
  private boolean serverCallbacksDone;
  private boolean finished;

  InProcessStream(InProcessClientTransport transport, InProcessServerTransport server,
      RequestHeaders headers, ClientStreamListener clientListener) {
    this.transport = transport;
    this.server = server;
    TransportOptions c = transport.options();
    TransportOptions s = server == null ? TransportOptions.defaults() : server.options();
    Metadata md = new Metadata();
    md.merge(headers.metadata());
    // As grpc-java's in-process transport: the channel's user agent ahead of the transport's own.
    md.discardAll(USER_AGENT);
    String userAgent = c.get(TransportOptions.USER_AGENT);
    md.put(USER_AGENT, userAgent == null ? OWN_USER_AGENT : userAgent + " " + OWN_USER_AGENT);
    this.headers = headers.toBuilder().metadata(md).build();
    this.clientListener = clientListener;
    this.clientEventSink = c.get(TransportOptions.EVENTS);
    this.serverEventSink = s.get(TransportOptions.EVENTS);
    this.clientMaxMetadataSize = c.get(TransportOptions.MAX_INBOUND_METADATA_SIZE);
    this.serverMaxMetadataSize = s.get(TransportOptions.MAX_INBOUND_METADATA_SIZE);
    this.toServer = new Pipe(s.get(TransportOptions.FLOW_CONTROL_WINDOW),
        s.get(TransportOptions.MAX_INBOUND_MESSAGE_SIZE), true,
        c.get(TransportOptions.COMPRESSOR_REGISTRY), s.get(TransportOptions.DECOMPRESSOR_REGISTRY));
    this.toClient = new Pipe(c.get(TransportOptions.FLOW_CONTROL_WINDOW),
        c.get(TransportOptions.MAX_INBOUND_MESSAGE_SIZE), false,
        s.get(TransportOptions.COMPRESSOR_REGISTRY), c.get(TransportOptions.DECOMPRESSOR_REGISTRY));
  }

  ClientStream clientSide() {
    return client;
  }

  /**
   * The status that refuses this call because its request headers are larger than the server's
   * {@link TransportOptions#MAX_INBOUND_METADATA_SIZE}; null if they fit.
   */
  Status requestHeadersTooLarge() {
    int size = MetadataSize.of(headers.metadata());
    return size <= serverMaxMetadataSize ? null : Status.RESOURCE_EXHAUSTED.withDescription("request headers of "
        + size + " bytes are larger than the server's maxInboundMetadataSize of " + serverMaxMetadataSize + " bytes");
  }

  private Status responseTooLarge(String what, Metadata md) {
    int size = MetadataSize.of(md);
    return size <= clientMaxMetadataSize ? null : Status.RESOURCE_EXHAUSTED.withDescription("response " + what
        + " of " + size + " bytes are larger than the client's maxInboundMetadataSize of " + clientMaxMetadataSize
        + " bytes");
  }

  /** Refused before reaching the server: only the client hears of it. */
  void refuse(Status status) {
    synchronized (this) {
      clientClosed = true;
      serverClosed = true;
      serverCallbacksDone = true;
      clientEvents.execute(() -> clientListener.onClose(status, new Metadata()));
      clientEvents.execute(this::clientCallbacksDone);
    }
  }

  /** Hands the stream to the server's listener. */
  void begin() {
    serverEvents.execute(() -> {
      try {
        serverListener = server.listener().streamCreated(serverSide, headers);
      } catch (RuntimeException e) {
        abort(Status.INTERNAL.withDescription("server failed to accept the stream: " + e).withCause(e),
            Status.INTERNAL.withCause(e));
      }
      if (serverListener == null) {
        serverListener = NoopServerListener.INSTANCE;
      }
      boolean open;
      synchronized (this) {
        open = !serverClosed;
      }
      if (open) {
        // As grpc-java's transports: a new stream, with its whole window free, is ready; a server
        // that writes only from its on-ready handler would otherwise never start.
        serverListener.onReady();
      }
    });
  }

  /**
   * Ends the call at once on both sides: the client hears {@code forClient}, the server {@code
   * forServer}. May be called with the lock held (the monitor is reentrant); lock order is always
   * stream, then transport, then server.
   */
  void abort(Status forClient, Status forServer) {
    synchronized (this) {
      toServer.clear();
      toClient.clear();
      if (!clientClosed) {
        clientClosed = true;
        clientEvents.execute(() -> clientListener.onClose(forClient, new Metadata()));
        clientEvents.execute(this::clientCallbacksDone);
      }
      if (!serverClosed) {
        serverClosed = true;
        serverEvents.execute(() -> serverListener.onCancel(forServer));
        serverEvents.execute(this::serverCallbacksDone);
      }
    }
  }

  // The stream counts as closed for its transports only once each side's last callback has run,
  // so transportTerminated and serverTerminated never overtake a stream's own events.
  private void clientCallbacksDone() {
    synchronized (this) {
      clientCallbacksDone = true;
    }
    finish();
  }

  private void serverCallbacksDone() {
    synchronized (this) {
      serverCallbacksDone = true;
    }
    finish();
  }

  private void finish() {
    synchronized (this) {
      if (finished || !clientCallbacksDone || !serverCallbacksDone) {
        return;
      }
      finished = true;
    }
    transport.streamClosed(this);
  }

  private void drainToServer() {
    try {
      while (!serverClosed && toServer.canDeliver()) {
        ByteBuffer m = toServer.take();
        serverEvents.execute(() -> serverListener.onMessage(m));
      }
    } catch (StatusRuntimeException e) {
      abort(e.getStatus(), e.getStatus());
      return;
    }
    if (toServer.senderDone && toServer.isEmpty() && !toServer.endDelivered && !serverClosed) {
      toServer.endDelivered = true;
      serverEvents.execute(() -> serverListener.onHalfClose());
    }
    if (!clientClosed && toServer.takeReady()) {
      clientEvents.execute(clientListener::onReady);
    }
  }

  private void drainToClient() {
    try {
      while (!clientClosed && toClient.canDeliver()) {
        ByteBuffer m = toClient.take();
        clientEvents.execute(() -> clientListener.onMessage(m));
      }
    } catch (StatusRuntimeException e) {
      abort(e.getStatus(), e.getStatus());
      return;
    }
    if (pendingStatus != null && toClient.isEmpty() && !clientClosed) {
      clientClosed = true;
      Status status = pendingStatus;
      Metadata trailers = pendingTrailers;
      clientEvents.execute(() -> clientListener.onClose(status, trailers));
      clientEvents.execute(this::clientCallbacksDone);
      if (!serverClosed) {
        serverClosed = true;
        serverEvents.execute(() -> serverListener.onComplete());
        serverEvents.execute(this::serverCallbacksDone);
      }
      return;
    }
    if (!serverClosed && toClient.takeReady()) {
      serverEvents.execute(() -> serverListener.onReady());
    }
  }

  private final class Client implements ClientStream {
    @Override
    public void writeMessage(ByteBuffer message) {
      synchronized (InProcessStream.this) {
        if (clientClosed || toServer.senderDone) {
          return;
        }
        long n = toServer.write(message, headers.messageEncoding());
        transport.bytesSent.addAndGet(n);
        clientEventSink.bytesSent(n);
        serverEventSink.bytesReceived(n);
        drainToServer();
      }
    }

    @Override
    public void flush() {}

    @Override
    public void request(int numMessages) {
      checkPositive(numMessages);
      synchronized (InProcessStream.this) {
        toClient.request(numMessages);
        drainToClient();
      }
    }

    @Override
    public void halfClose() {
      synchronized (InProcessStream.this) {
        toServer.senderDone = true;
        drainToServer();
      }
    }

    @Override
    public void cancel(Status status) {
      boolean open;
      synchronized (InProcessStream.this) {
        open = !serverClosed;
      }
      if (open) {
        serverEventSink.streamReset();
      }
      abort(status, Status.CANCELLED.withDescription("client cancelled the call: " + status.getCode()
          + (status.getDescription() == null ? "" : " " + status.getDescription())));
    }

    @Override
    public boolean isReady() {
      synchronized (InProcessStream.this) {
        return !clientClosed && !toServer.senderDone && toServer.isReady();
      }
    }
  }

  private final class Server implements ServerStream {
    @Override
    public void writeHeaders(Metadata md) {
      synchronized (InProcessStream.this) {
        if (headersSent || serverClosed || pendingStatus != null) {
          return;
        }
        headersSent = true;
        Status tooLarge = responseTooLarge("headers", md);
        if (tooLarge != null) {
          abort(tooLarge, Status.CANCELLED.withDescription("the client refused the response headers: "
              + tooLarge.getDescription()));
          return;
        }
        Metadata copy = new Metadata();
        copy.merge(md);
        clientEvents.execute(() -> clientListener.onHeaders(copy));
      }
    }

    @Override
    public void writeMessage(ByteBuffer message) {
      synchronized (InProcessStream.this) {
        if (serverClosed || pendingStatus != null) {
          return;
        }
        if (!headersSent) {
          writeHeaders(new Metadata());
        }
        long n = toClient.write(message, responseEncoding);
        transport.bytesReceived.addAndGet(n);
        serverEventSink.bytesSent(n);
        clientEventSink.bytesReceived(n);
        drainToClient();
      }
    }

    @Override
    public void flush() {}

    @Override
    public void request(int numMessages) {
      checkPositive(numMessages);
      synchronized (InProcessStream.this) {
        toServer.request(numMessages);
        drainToServer();
      }
    }

    @Override
    public void close(Status status, Metadata trailers) {
      synchronized (InProcessStream.this) {
        if (serverClosed || pendingStatus != null) {
          return;
        }
        Metadata copy = new Metadata();
        copy.merge(trailers);
        Status tooLarge = responseTooLarge("trailers", copy);
        pendingStatus = tooLarge != null ? tooLarge : status;
        pendingTrailers = tooLarge != null ? new Metadata() : copy;
        drainToClient();
      }
    }

    @Override
    public void cancel(Status status) {
      boolean open;
      synchronized (InProcessStream.this) {
        open = !clientClosed;
      }
      if (open) {
        clientEventSink.streamReset();
      }
      abort(status, status);
    }

    @Override
    public boolean isReady() {
      synchronized (InProcessStream.this) {
        return !serverClosed && pendingStatus == null && toClient.isReady();
      }
    }

    @Override
    public void setMessageCompression(String encoding) {
      if (encoding == null) {
        throw new IllegalArgumentException("encoding must not be null");
      }
      if (!GrpcMessageFraming.IDENTITY.equals(encoding)
          && server.options().get(TransportOptions.COMPRESSOR_REGISTRY).lookupCompressor(encoding) == null) {
        throw new IllegalArgumentException("encoding: no compressor for '" + encoding
            + "' in the server's compressor registry");
      }
      synchronized (InProcessStream.this) {
        // As grpc-java: an encoding the client does not accept leaves the responses uncompressed.
        responseEncoding = headers.acceptedMessageEncodings().contains(encoding) ? encoding : null;
      }
    }

    @Override
    public boolean receivedAsEarlyData() {
      return false;
    }

    @Override
    public io.grpc.Attributes attributes() {
      return transport.serverAttributes();
    }

    @Override
    public ConnectionInfo connectionInfo() {
      return ConnectionInfo.builder(transport.transportName())
          .protocolVersion(transport.protocolVersion())
          .localAddress(server.listenAddress()).remoteAddress(transport.localAddress())
          .bytesSent(transport.bytesReceived.get()).bytesReceived(transport.bytesSent.get()).build();
    }
  }

  private static void checkPositive(int numMessages) {
    if (numMessages <= 0) {
      throw new IllegalArgumentException("numMessages must be > 0, was " + numMessages);
    }
  }

  /** Listener for a stream the server refused to take. */
  private static final class NoopServerListener implements ServerStreamListener {
    static final NoopServerListener INSTANCE = new NoopServerListener();

    @Override public void onMessage(ByteBuffer message) {}

    @Override public void onHalfClose() {}

    @Override public void onReady() {}

    @Override public void onComplete() {}

    @Override public void onCancel(Status status) {}
  }
}
