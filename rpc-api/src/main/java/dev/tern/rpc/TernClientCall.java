package dev.tern.rpc;

import dev.tern.rpc.metrics.TransportMetrics;
import dev.tern.rpc.spi.ClientStream;
import dev.tern.rpc.spi.GrpcMessageFraming;
import dev.tern.rpc.spi.RequestHeaders;
import dev.tern.rpc.spi.SerializingExecutor;
import dev.tern.rpc.spi.TransportOptions;
import io.grpc.Attributes;
import io.grpc.CallCredentials;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Deadline;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.SecurityLevel;
import io.grpc.Status;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One client call on a Tern channel: builds the request headers (deadline, compression, priority,
 * early data, call credentials, protocol versions), waits for a transport, and maps the call's
 * methods onto an SPI {@link ClientStream}.
 */
final class TernClientCall<ReqT, RespT> extends ClientCall<ReqT, RespT>
    implements ClientCallStreamListener.CallHooks, ConnectionManager.Waiter {
  private final MethodDescriptor<ReqT, RespT> method;
  private final CallOptions callOptions;
  private final ChannelConfig cfg;
  private final CallRouter connections;
  private final java.util.concurrent.ScheduledExecutorService scheduler;
  private final Executor callExecutor;
  private final Context context;
  private final DelayedClientStream stream;
  private final ClientCallStreamListener<RespT> streamListener;
  private final Context.CancellationListener onContextCancelled = this::contextCancelled;
  private volatile Connection connection;
  /**
   * The counters this call was counted on as started (its first connection's transport), then
   * {@link #CLOSED} once counted as finished; null before either.
   */
  private volatile Object counted;
  private static final Object CLOSED = new Object();
  /** Most replays of a call whose stream never left this client (grpc-java allows 1,000). */
  static final int MAX_NOT_SENT_REPLAYS = 1000;
  private static final java.util.concurrent.atomic.AtomicReferenceFieldUpdater<TernClientCall<?, ?>, Object> COUNTED =
      newCountedUpdater();

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static java.util.concurrent.atomic.AtomicReferenceFieldUpdater<TernClientCall<?, ?>, Object> newCountedUpdater() {
    return (java.util.concurrent.atomic.AtomicReferenceFieldUpdater) java.util.concurrent.atomic.AtomicReferenceFieldUpdater
        .newUpdater(TernClientCall.class, Object.class, "counted");
  }
  private RequestHeaders.Builder headers;
  private Metadata requestMetadata;
  private String authority;
  private ScheduledFuture<?> deadlineTimer;
  private volatile ClientTracers tracers;
  private boolean started;
  private boolean halfClosed;
  /** The call was already replayed once after its stream was refused unprocessed. */
  private volatile boolean transparentRetryUsed;
  /** Replays of streams that never left this client ({@link #notSent}). */
  private int notSentReplays;
  /**
   * Guards {@link #notSentReplays}, {@link #obtaining} and {@link #obtainAgain} (a replay asked for
   * inside a replay).
   */
  private final Object replayLock = new Object();
  private boolean obtaining;
  private boolean obtainAgain;
  private boolean earlyData;
  /** The call's deadline, whether it came from the Context, and its timeout when the call started. */
  private Deadline deadline;
  private boolean contextIsDeadlineSource;
  private long timeoutNanos;

  TernClientCall(MethodDescriptor<ReqT, RespT> method, CallOptions callOptions, ChannelConfig cfg,
      CallRouter connections, java.util.concurrent.ScheduledExecutorService scheduler,
      Executor channelExecutor) {
    this.method = method;
    this.callOptions = callOptions;
    this.cfg = cfg;
    this.connections = connections;
    this.scheduler = scheduler;
    Executor e = callOptions.getExecutor() != null ? callOptions.getExecutor() : channelExecutor;
    this.callExecutor = new SerializingExecutor(e);
    this.context = Context.current();
    int maxInbound = callOptions.getMaxInboundMessageSize() != null
        ? callOptions.getMaxInboundMessageSize() : cfg.maxInboundMessageSize;
    this.streamListener = new ClientCallStreamListener<>(method, callExecutor, maxInbound, this);
    this.stream = new DelayedClientStream(status -> streamListener.close(status, new Metadata()),
        cfg.options.get(TransportOptions.PER_RPC_BUFFER_LIMIT), cfg.retryBuffered,
        cfg.options.get(TransportOptions.RETRY_BUFFER_SIZE));
  }

  @Override
  public void start(Listener<RespT> listener, Metadata md) {
    if (started) {
      throw new IllegalStateException("call already started");
    }
    started = true;
    Metadata copy = new Metadata();
    copy.merge(md);
    tracers = ClientTracers.create(callOptions, copy);
    streamListener.setListener(listener, tracers);
    if (context.isCancelled()) {
      stream.cancel(Contexts.statusFromCancelled(context));
      return;
    }
    String encoding = callOptions.getCompressor();
    if (encoding != null && !GrpcMessageFraming.IDENTITY.equals(encoding)
        && cfg.compressors.lookupCompressor(encoding) == null) {
      stream.cancel(Status.INTERNAL.withDescription("unable to find a compressor named '" + encoding + "'"));
      return;
    }
    deadline = effectiveDeadline();
    contextIsDeadlineSource = deadline != null && deadline.equals(context.getDeadline());
    if (deadline != null) {
      timeoutNanos = deadline.timeRemaining(TimeUnit.NANOSECONDS);
      if (timeoutNanos <= 0) {
        // grpc-java's wording (ClientCallImpl), which callers and tests match on.
        stream.cancel(Status.DEADLINE_EXCEEDED.withDescription(String.format(Locale.ROOT,
            "ClientCall started after %s deadline was exceeded %.9f seconds ago", deadlineSource(),
            -timeoutNanos / 1e9)));
        return;
      }
    }
    context.addListener(onContextCancelled, Runnable::run);
    if (deadline != null) {
      deadlineTimer = scheduler.schedule(this::deadlineExceeded, timeoutNanos, TimeUnit.NANOSECONDS);
    }
    List<String> accepted = new ArrayList<>(cfg.decompressors.getAdvertisedMessageEncodings());
    if (!accepted.contains(GrpcMessageFraming.IDENTITY)) {
      accepted.add(GrpcMessageFraming.IDENTITY);
    }
    requestMetadata = copy;
    earlyData = TernCallOptions.effectiveEarlyData(callOptions, method);
    authority = callOptions.getAuthority() != null ? callOptions.getAuthority() : cfg.authority;
    headers = RequestHeaders.builder(method.getFullMethodName())
        .authority(authority)
        .metadata(copy)
        .deadline(deadline)
        .messageEncoding(encoding == null ? GrpcMessageFraming.IDENTITY : encoding)
        .acceptedMessageEncodings(accepted)
        .priority(TernCallOptions.effectivePriority(callOptions, method))
        .earlyDataAllowed(earlyData)
        .idempotent(method.isIdempotent());
    CallCredentials creds = callOptions.getCredentials();
    if (creds == null) {
      connections.obtain(this, pickArgs(), callOptions.isWaitForReady(), earlyData);
    } else {
      applyCredentials(creds, copy);
    }
  }

  private Deadline effectiveDeadline() {
    Deadline a = callOptions.getDeadline();
    Deadline b = context.getDeadline();
    if (a == null) {
      return b;
    }
    return b == null ? a : a.minimum(b);
  }

  private void applyCredentials(CallCredentials creds, Metadata md) {
    CallCredentials.RequestInfo info = new CallCredentials.RequestInfo() {
      @Override public MethodDescriptor<?, ?> getMethodDescriptor() { return method; }

      @Override public CallOptions getCallOptions() { return callOptions; }

      @Override public SecurityLevel getSecurityLevel() { return cfg.securityLevel; }

      @Override public String getAuthority() { return authority; }

      @Override public Attributes getTransportAttrs() { return Attributes.EMPTY; }
    };
    try {
      creds.applyRequestMetadata(info, callExecutor, new CallCredentials.MetadataApplier() {
        @Override
        public void apply(Metadata extra) {
          md.merge(extra);
          connections.obtain(TernClientCall.this, pickArgs(), callOptions.isWaitForReady(), earlyData);
        }

        @Override
        public void fail(Status status) {
          stream.cancel(status.isOk() ? Status.UNAUTHENTICATED.withDescription(
              "call credentials failed with an OK status") : status);
        }
      });
    } catch (RuntimeException e) {
      stream.cancel(Status.UNAUTHENTICATED.withDescription("call credentials threw: " + e).withCause(e));
    }
  }

  /** What the channel's load balancer sees of this call. */
  private CallRouter.PickArgs pickArgs() {
    return new CallRouter.PickArgs(method, requestMetadata, callOptions);
  }

  @Override
  public void ready(Connection c) {
    if (streamListener.isClosed()) {
      return;
    }
    connection = c;
    if (COUNTED.compareAndSet(this, null, c.metrics)) {
      // Counted on the transport that first carried it (a replay elsewhere does not move it).
      c.metrics.callStarted();
    }
    if (c.versionInHeaders()) {
      // A replayed call (transparent retry) may reach a transport that states versions again.
      requestMetadata.removeAll(ProtocolVersions.REQUEST_KEY);
      requestMetadata.put(ProtocolVersions.REQUEST_KEY, ProtocolVersions.format(cfg.protocolVersions));
    }
    tracers.streamCreated(transportAttributes(c), requestMetadata);
    int attempt = stream.creating();
    stream.setStream(c.transport.newStream(headers.build(), streamListener), attempt);
    if (stream.isReady()) {
      streamListener.onReady();
    }
  }

  @Override
  public void failed(Status status) {
    stream.cancel(status);
  }

  private void deadlineExceeded() {
    cancelStream(deadlineStatus());
  }

  private String deadlineSource() {
    return contextIsDeadlineSource ? "Context" : "CallOptions";
  }

  /**
   * grpc-java's wording (ClientCallImpl): "CallOptions deadline exceeded after 0.999876543s.
   * [remote_addr=...]", naming where the deadline came from, the timeout the call started with
   * and, in brackets, the peer or that no connection was ready yet.
   */
  private Status deadlineStatus() {
    Connection c = connection;
    String insight = c == null || !stream.hasStream() ? "waiting_for_connection"
        : "remote_addr=" + c.info().remoteAddress();
    return Status.DEADLINE_EXCEEDED.withDescription(String.format(Locale.ROOT,
        "%s deadline exceeded after %d.%09ds. [%s]", deadlineSource(), timeoutNanos / 1_000_000_000L,
        timeoutNanos % 1_000_000_000L, insight));
  }

  @Override
  public Status statusFromTransport(Status status) {
    Status.Code code = status.getCode();
    if ((code == Status.Code.CANCELLED || code == Status.Code.DEADLINE_EXCEEDED)
        && deadline != null && deadline.isExpired()) {
      return deadlineStatus();
    }
    return status;
  }

  private void contextCancelled(Context ctx) {
    cancelStream(Contexts.statusFromCancelled(ctx));
  }

  @Override
  public void cancelStream(Status status) {
    stream.cancel(status);
    // The call ends now even if the transport never confirms the cancel.
    streamListener.close(status, new Metadata());
  }

  @Override
  public void closed(Status status) {
    Object m = COUNTED.getAndSet(this, CLOSED);
    TransportMetrics metrics;
    if (m instanceof TransportMetrics) {
      metrics = (TransportMetrics) m;
    } else {
      // Ended before any stream (a deadline while connecting, a failed connect, a cancel).
      metrics = cfg.metrics("none");
      metrics.callStarted();
    }
    metrics.callFinished(status.getCode());
    if (deadlineTimer != null) {
      deadlineTimer.cancel(false);
    }
    context.removeListener(onContextCancelled);
    connections.cancelWait(this);
    stream.commit();
  }

  @Override
  public void committed() {
    stream.commit();
  }

  /**
   * As grpc-java's client does for a stream refused unprocessed (its {@code RetriableStream} with
   * {@code RpcProgress.REFUSED}): the call is replayed once, transparently, on a stream the channel
   * obtains again (a new connection when the old one is draining), with new tracers whose stream
   * info says it is a transparent retry (with no previous attempt counted, as grpc-java). A call that cannot be replayed (one already replayed,
   * a response delivered, more sent than {@code perRpcBufferLimit} or the channel's
   * {@code retryBufferSize} allow,
   * cancelled, or on a channel built with {@code disableRetry()}) ends with {@code status}.
   */
  @Override
  public void refused(Status status) {
    if (!transparentRetryUsed && cfg.options.get(TransportOptions.TRANSPARENT_RETRY)
        && !streamListener.isClosed() && stream.detachForReplay()) {
      transparentRetryUsed = true;
      replay(status);
      return;
    }
    streamListener.onClose(status, new Metadata());
  }

  /**
   * As grpc-java's client does for a stream that never left it ({@code RpcProgress.MISCARRIED}: the
   * transport was shut down or the server's GOAWAY came before the stream was sent): the call is
   * replayed transparently on a stream the channel obtains again, without using up the one replay
   * a refusal by the server gets, up to {@link #MAX_NOT_SENT_REPLAYS} times (grpc-java's bound on
   * such local retries); past that the call fails {@code INTERNAL}. A call that cannot be replayed
   * ends with {@code status}, as in {@link #refused}.
   */
  @Override
  public void notSent(Status status) {
    int replays;
    synchronized (replayLock) {
      replays = ++notSentReplays;
    }
    if (replays > MAX_NOT_SENT_REPLAYS) {
      streamListener.onClose(Status.INTERNAL.withDescription("a call found no connection to send it on in "
          + MAX_NOT_SENT_REPLAYS + " tries; the last: " + status.getDescription()), new Metadata());
      return;
    }
    if (cfg.options.get(TransportOptions.TRANSPARENT_RETRY) && !streamListener.isClosed()
        && stream.detachForReplay()) {
      replay(status);
      return;
    }
    streamListener.onClose(status, new Metadata());
  }

  /** Ends the detached attempt's tracers with {@code status} and sends the call again. */
  private void replay(Status status) {
    tracers.closed(status, new Metadata());
    // grpc-java does not count a transparent retry as an attempt: previousAttempts stays 0.
    tracers = ClientTracers.create(callOptions, requestMetadata, 0, true);
    streamListener.setTracers(tracers);
    obtainForReplay();
  }

  /**
   * Asks the channel for a stream again. A transport may refuse the new stream inside {@code
   * obtain} (one that was shut down a moment ago), which asks for another replay on this thread:
   * that one runs after the current {@code obtain} returns, in this loop, so that a run of such
   * refusals does not nest.
   */
  private void obtainForReplay() {
    synchronized (replayLock) {
      if (obtaining) {
        obtainAgain = true;
        return;
      }
      obtaining = true;
    }
    while (true) {
      connections.obtain(this, pickArgs(), callOptions.isWaitForReady(), earlyData);
      synchronized (replayLock) {
        if (!obtainAgain) {
          obtaining = false;
          return;
        }
        obtainAgain = false;
      }
    }
  }

  @Override
  public Connection connection() {
    return connection;
  }

  @Override
  public void request(int numMessages) {
    if (numMessages < 0) {
      throw new IllegalArgumentException("numMessages must be >= 0, was " + numMessages);
    }
    if (!started) {
      throw new IllegalStateException("call not started");
    }
    if (numMessages > 0) {
      stream.request(numMessages);
    }
  }

  @Override
  public void cancel(String message, Throwable cause) {
    if (message == null && cause == null) {
      message = "cancelled without a message or cause";
    }
    if (!started) {
      return;
    }
    cancelStream(Status.CANCELLED.withDescription(message).withCause(cause));
  }

  @Override
  public void halfClose() {
    if (!started || halfClosed) {
      throw new IllegalStateException(started ? "call already half-closed" : "call not started");
    }
    halfClosed = true;
    stream.halfClose();
  }

  @Override
  public void sendMessage(ReqT message) {
    if (!started || halfClosed) {
      throw new IllegalStateException(started ? "call already half-closed" : "call not started");
    }
    if (streamListener.isClosed()) {
      return;
    }
    byte[] bytes;
    try (InputStream in = method.streamRequest(message)) {
      bytes = Marshalling.toBytes(in);
    } catch (IOException | RuntimeException e) {
      cancelStream(Status.INTERNAL.withDescription("failed to marshal the request of "
          + method.getFullMethodName()).withCause(e));
      return;
    }
    Integer max = callOptions.getMaxOutboundMessageSize();
    if (max != null && bytes.length > max) {
      // grpc-java's framer words it so, but then cancels the call (CANCELLED, "Failed to stream
      // message"); Tern keeps RESOURCE_EXHAUSTED, which says what went wrong (docs/errors.md).
      cancelStream(Status.RESOURCE_EXHAUSTED.withDescription(String.format(Locale.ROOT,
          "message too large %d > %d", bytes.length, max)));
      return;
    }
    stream.run(s -> {
      // Reported when the message reaches the transport, after streamCreated (again to a
      // replayed attempt's tracers, each attempt wrapping the bytes afresh).
      tracers.outboundMessage(bytes.length);
      s.writeMessage(ByteBuffer.wrap(bytes));
      s.flush();
    }, bytes.length);
  }

  @Override
  public boolean isReady() {
    return !streamListener.isClosed() && stream.isReady();
  }

  @Override
  public void setMessageCompression(boolean enabled) {
    // The SPI compresses every message of a call in its encoding; per-message opt-out is not offered.
  }

  @Override
  public Attributes getAttributes() {
    Connection c = connection;
    return c == null ? Attributes.EMPTY : transportAttributes(c);
  }

  private static Attributes transportAttributes(Connection c) {
    ConnectionInfo info = c.info();
    Attributes.Builder b = Attributes.newBuilder();
    if (info.transport() != null) {
      // Which transport carried the call: call policies keep a circuit breaker per transport.
      b.set(dev.tern.rpc.spi.ConnectionAttributes.TRANSPORT, info.transport());
    }
    if (info.remoteAddress() != null) {
      b.set(io.grpc.Grpc.TRANSPORT_ATTR_REMOTE_ADDR, info.remoteAddress());
    }
    if (info.localAddress() != null) {
      b.set(io.grpc.Grpc.TRANSPORT_ATTR_LOCAL_ADDR, info.localAddress());
    }
    if (info.sslSession() != null) {
      b.set(io.grpc.Grpc.TRANSPORT_ATTR_SSL_SESSION, info.sslSession());
    }
    return b.build();
  }
}
