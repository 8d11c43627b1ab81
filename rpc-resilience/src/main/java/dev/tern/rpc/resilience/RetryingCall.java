package dev.tern.rpc.resilience;

import dev.tern.rpc.HedgingPolicy;
import dev.tern.rpc.RetryPolicy;
import dev.tern.rpc.spi.SerializingExecutor;
import io.github.resilience4j.retry.Retry;
import io.grpc.Attributes;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.KnownLength;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A call carried out by a retry or a hedging policy, with grpc's semantics (gRFC A6): each attempt
 * is a call of its own on the channel below, given the request messages again from a buffer; the
 * first attempt to receive response headers or a message (or to close OK) is committed, and from
 * then on the call is that attempt: nothing is replayed any more, the other attempts are
 * cancelled, and the buffer is let go.
 *
 * <ul>
 *   <li>Retry: an uncommitted attempt that fails with one of the policy's retryable codes (by
 *       the policy, a code with which the server did not process the call), or that has no
 *       response headers within {@code perAttemptRecvTimeout}, is tried again after the backoff
 *       of the method's resilience4j {@code Retry} (its {@link Retry.AsyncContext} counts the
 *       attempts and asks {@link GrpcBackoff} for the wait), unless the server's {@code
 *       grpc-retry-pushback-ms} forbids it (negative or malformed) or the channel's throttle is
 *       at half its tokens or below. A pushback of 0 or more is the wait.
 *   <li>Hedging: a copy is sent at once and one more every {@code hedgingDelay}, up to {@code
 *       maxAttempts} (and while the throttle allows); a copy failing with a non-fatal code lets
 *       the others go on (a pushback of 0 or more sends the next copy after it, a negative one
 *       sends no more); any other outcome ends the call.
 * </ul>
 *
 * <p>Each new attempt carries {@code grpc-previous-rpc-attempts}. Request messages are kept for
 * replay up to the channel's {@code perRpcBufferLimit} (and, across its calls, {@code
 * retryBufferSize}); past that the call commits to the attempt under way (or, between attempts,
 * to the next one). Events reach the application serially, from one attempt at a time.
 */
final class RetryingCall<ReqT, RespT> extends ClientCall<ReqT, RespT> {
  /** gRFC A6: the number of attempts that came before this one, on every retried or hedged attempt. */
  static final Metadata.Key<String> PREVIOUS_ATTEMPTS =
      Metadata.Key.of("grpc-previous-rpc-attempts", Metadata.ASCII_STRING_MARSHALLER);
  /** gRFC A6: the server's pushback, in milliseconds, in the trailers of a failed attempt. */
  static final Metadata.Key<String> PUSHBACK = Metadata.Key.of("grpc-retry-pushback-ms", Metadata.ASCII_STRING_MARSHALLER);

  private final MethodDescriptor<ReqT, RespT> method;
  private final CallOptions options;
  private final Channel next;
  private final Context context;
  private final ResilientChannel channel;
  private final RetryPolicy retryPolicy;
  private final HedgingPolicy hedgingPolicy;
  private final Retry.AsyncContext<Object> retryContext;
  private final RetryThrottle throttle;
  private final int maxAttempts;
  /** Delivers to the application one event at a time, whichever attempt it came from. */
  private final SerializingExecutor deliver = new SerializingExecutor(Runnable::run);

  // Guarded by this.
  private Listener<RespT> listener;
  private Metadata headers;
  private final List<Attempt> active = new ArrayList<>();
  private Attempt committed;
  private Attempt latest;
  private int attemptsMade;
  private final List<ReqT> sent = new ArrayList<>();
  private long bufferedBytes;
  private boolean commitNext;
  private int requested;
  private boolean halfClosed;
  private Boolean compression;
  private boolean cancelled;
  private boolean closed;
  private boolean retryContextDone;
  private ScheduledFuture<?> timer;
  private int backoffStep;
  private boolean noMoreHedges;

  RetryingCall(MethodDescriptor<ReqT, RespT> method, CallOptions options, Channel next, Context context,
      ResilientChannel channel, RetryPolicy retryPolicy, HedgingPolicy hedgingPolicy, Retry retry) {
    this.method = method;
    this.options = options;
    this.next = next;
    this.context = context;
    this.channel = channel;
    this.retryPolicy = retryPolicy;
    this.hedgingPolicy = hedgingPolicy;
    this.retryContext = retry == null ? null : retry.asyncContext();
    this.throttle = channel.throttle();
    this.maxAttempts = retryPolicy != null ? retryPolicy.maxAttempts() : hedgingPolicy.maxAttempts();
  }

  @Override
  public void start(Listener<RespT> listener, Metadata headers) {
    Attempt first;
    synchronized (this) {
      if (this.listener != null) {
        throw new IllegalStateException("call already started");
      }
      this.listener = listener;
      this.headers = headers;
      first = newAttempt();
    }
    first.start();
    if (hedgingPolicy != null) {
      scheduleHedge(hedgingPolicy.hedgingDelayNanos());
    }
  }

  /** A new attempt, counted; started by the caller outside the lock. */
  private Attempt newAttempt() {
    Attempt a = new Attempt(attemptsMade++);
    active.add(a);
    latest = a;
    if (commitNext) {
      commitNext = false;
      commit(a);
    }
    return a;
  }

  // ---- The application's side ----

  @Override
  public void request(int numMessages) {
    List<Attempt> to;
    synchronized (this) {
      requested += numMessages;
      to = targets();
    }
    for (Attempt a : to) {
      a.call.request(numMessages);
    }
  }

  @Override
  public void sendMessage(ReqT message) {
    List<Attempt> to;
    synchronized (this) {
      if (committed == null) {
        // Kept for the attempts still replaying (and, within the limits, for later ones).
        sent.add(message);
        if (!reserve(sizeOf(message))) {
          // Past the buffer limit: no replay from here on (gRFC A6), so the call commits.
          if (active.isEmpty()) {
            commitNext = true;
          } else {
            commit(active.get(0));
          }
        }
      } else if (!committed.live) {
        sent.add(message); // the committed attempt is still replaying: it takes it from there
      }
      to = targets();
    }
    for (Attempt a : to) {
      a.call.sendMessage(message);
    }
  }

  @Override
  public void halfClose() {
    List<Attempt> to;
    synchronized (this) {
      halfClosed = true;
      to = targets();
    }
    for (Attempt a : to) {
      a.call.halfClose();
    }
  }

  @Override
  public void cancel(String message, Throwable cause) {
    List<Attempt> to;
    boolean closeNow;
    synchronized (this) {
      if (listener == null || cancelled) {
        return;
      }
      cancelled = true;
      cancelTimer();
      to = targets();
      // Attempts still replaying see the flag and cancel themselves.
      closeNow = active.isEmpty();
      for (Attempt a : to) {
        a.cancelSent = true;
      }
    }
    for (Attempt a : to) {
      a.call.cancel(message, cause);
    }
    if (closeNow) {
      finish(Status.CANCELLED.withDescription(message == null ? "cancelled without a message or cause" : message)
          .withCause(cause), new Metadata(), null);
    }
  }

  @Override
  public boolean isReady() {
    Attempt a;
    synchronized (this) {
      a = committed != null ? committed : latest;
    }
    return a != null && a.live && a.call.isReady();
  }

  @Override
  public void setMessageCompression(boolean enabled) {
    List<Attempt> to;
    synchronized (this) {
      compression = enabled;
      to = targets();
    }
    for (Attempt a : to) {
      a.call.setMessageCompression(enabled);
    }
  }

  @Override
  public Attributes getAttributes() {
    Attempt a;
    synchronized (this) {
      a = committed != null ? committed : latest;
    }
    return a == null || a.call == null ? Attributes.EMPTY : a.call.getAttributes();
  }

  /**
   * The attempts an application's operation goes to now: the committed one, else every live one.
   * An attempt still replaying is not live: it takes the operation from the buffer.
   */
  private List<Attempt> targets() {
    if (committed != null) {
      return committed.live && !committed.closed ? List.of(committed) : List.of();
    }
    List<Attempt> out = new ArrayList<>(active.size());
    for (Attempt a : active) {
      if (a.live) {
        out.add(a);
      }
    }
    return out;
  }

  private boolean reserve(long bytes) {
    if (bufferedBytes + bytes > channel.perRpcBufferLimit() || !channel.reserveBuffer(bytes)) {
      return false;
    }
    bufferedBytes += bytes;
    return true;
  }

  private long sizeOf(ReqT message) {
    try (InputStream in = method.streamRequest(message)) {
      if (in instanceof KnownLength) {
        return in.available();
      }
      long n = 0;
      byte[] skip = new byte[8192];
      for (int r; (r = in.read(skip)) > 0; ) {
        n += r;
      }
      return n;
    } catch (IOException | RuntimeException e) {
      // The attempt's own marshalling will fail the call with a clear status; count nothing here.
      return 0;
    }
  }

  // ---- Commit ----

  /** Makes {@code a} the call: the other attempts are cancelled, the timer stopped, the buffer let go. */
  private void commit(Attempt a) {
    committed = a;
    cancelTimer();
    for (Attempt other : active) {
      if (other != a) {
        other.lost = true;
      }
    }
    if (a.live) {
      clearBuffer();
    } // else the attempt is replaying: it clears the buffer when it has taken everything
  }

  private void clearBuffer() {
    sent.clear();
    channel.releaseBuffer(bufferedBytes);
    bufferedBytes = 0;
  }

  /** Cancels the losers after {@link #commit}, outside the lock. */
  private void cancelLosers() {
    List<Attempt> losers = new ArrayList<>();
    synchronized (this) {
      for (Attempt other : active) {
        if (other.lost && other.live && !other.cancelSent) {
          other.cancelSent = true;
          losers.add(other);
        }
      }
    }
    for (Attempt l : losers) {
      l.call.cancel("another attempt of the call was committed", null);
    }
  }

  private void cancelTimer() {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }

  // ---- Retries and hedges ----

  /** Schedules the next hedged copy after {@code delayNanos}, if one may still be sent. */
  private void scheduleHedge(long delayNanos) {
    synchronized (this) {
      if (closed || cancelled || committed != null || noMoreHedges || attemptsMade >= maxAttempts) {
        return;
      }
      cancelTimer();
      try {
        timer = channel.scheduler().schedule(this::sendHedge, delayNanos, TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException channelTerminated) {
        timer = null;
      }
    }
  }

  private void sendHedge() {
    Attempt a;
    synchronized (this) {
      timer = null;
      if (closed || cancelled || committed != null || noMoreHedges || attemptsMade >= maxAttempts
          || throttle != null && !throttle.permitsRetry()) {
        return;
      }
      a = newAttempt();
    }
    channel.listener().hedgeSent(method.getFullMethodName(), a.index);
    a.start();
    scheduleHedge(hedgingPolicy.hedgingDelayNanos());
  }

  private void sendRetry() {
    Attempt a;
    synchronized (this) {
      timer = null;
      if (closed || cancelled || committed != null) {
        return;
      }
      a = newAttempt();
    }
    a.start();
  }

  /** The server's pushback: null if none, -1 if it forbids retrying (negative or malformed). */
  private static Long pushback(Metadata trailers) {
    String v = trailers == null ? null : trailers.get(PUSHBACK);
    if (v == null) {
      return null;
    }
    try {
      long ms = Long.parseLong(v.trim());
      return ms < 0 ? -1L : ms;
    } catch (NumberFormatException malformed) {
      return -1L;
    }
  }

  /** An uncommitted attempt failed: retry or hedge on, or end the call with its status. */
  private void attemptFailed(Attempt a, Status status, Metadata trailers) {
    Long push = pushback(trailers);
    String method = this.method.getFullMethodName();
    if (retryPolicy != null) {
      boolean qualified = a.timedOut || retryPolicy.retryableStatusCodes().contains(status.getCode());
      if (qualified && throttle != null) {
        throttle.onQualifiedFailure();
      }
      String veto = cancelled ? "the call was cancelled"
          : push != null && push < 0 ? "the server's grpc-retry-pushback-ms forbids a retry"
          : qualified && throttle != null && !throttle.permitsRetry() ? "retries are throttled (retryThrottling)"
          : null;
      long waitMillis;
      boolean pastDeadline = false;
      synchronized (this) {
        AttemptFailure f = new AttemptFailure(status, trailers, a.timedOut, push != null && push >= 0 ? push : null,
            backoffStep, veto);
        waitMillis = retryContext.onError(f);
        retryContextDone = waitMillis < 0;
        if (waitMillis >= 0) {
          Deadline d = options.getDeadline();
          if (d != null && d.timeRemaining(TimeUnit.MILLISECONDS) <= waitMillis) {
            waitMillis = -1; // the retry would start after the deadline
            pastDeadline = true;
          }
        }
        if (waitMillis >= 0) {
          backoffStep = f.pushbackMillis != null ? 0 : backoffStep + 1;
          try {
            timer = channel.scheduler().schedule(this::sendRetry, waitMillis, TimeUnit.MILLISECONDS);
            return;
          } catch (RejectedExecutionException channelTerminated) {
            timer = null;
          }
        }
      }
      if (pastDeadline) {
        channel.listener().retriesExhausted(method, attemptsMade, status);
      }
      finish(status, trailers, a);
      return;
    }
    // Hedging.
    boolean nonFatal = !cancelled && hedgingPolicy.nonFatalStatusCodes().contains(status.getCode());
    if (nonFatal && throttle != null) {
      throttle.onQualifiedFailure();
    }
    boolean end;
    boolean sendNow = false;
    Long hedgeAfter = null;
    synchronized (this) {
      if (!nonFatal) {
        end = true; // a fatal code ends the call, and the other copies with it
      } else {
        if (push != null && push < 0) {
          noMoreHedges = true; // gRFC A6: no more copies; those in flight go on
          cancelTimer();
        }
        boolean canSendMore = !noMoreHedges && attemptsMade < maxAttempts
            && (throttle == null || throttle.permitsRetry());
        end = active.isEmpty() && !canSendMore;
        if (!end && canSendMore) {
          if (push != null) {
            hedgeAfter = push;
          } else if (active.isEmpty() && timer == null) {
            sendNow = true;
          }
        }
      }
    }
    if (end) {
      finish(status, trailers, a);
    } else if (hedgeAfter != null) {
      scheduleHedge(TimeUnit.MILLISECONDS.toNanos(hedgeAfter));
    } else if (sendNow) {
      sendHedge();
    }
  }

  /** Ends the call with {@code status}, once. */
  private void finish(Status status, Metadata trailers, Attempt from) {
    Listener<RespT> l;
    boolean reportExhausted = false;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      cancelTimer();
      l = listener;
      if (committed == null && from != null) {
        commit(from);
      }
      clearBuffer();
      if (retryContext != null && !retryContextDone) {
        retryContextDone = true;
        if (status.isOk()) {
          retryContext.onComplete();
        } else {
          // Committed, then failed: no retry may follow (recorded as an ignored error).
          retryContext.onError(new AttemptFailure(status, trailers, false, null, backoffStep,
              "the call was committed"));
        }
      } else if (hedgingPolicy != null && !status.isOk()) {
        reportExhausted = attemptsMade >= maxAttempts;
      }
    }
    cancelLosers();
    if (reportExhausted) {
      channel.listener().retriesExhausted(method.getFullMethodName(), attemptsMade, status);
    }
    deliver.execute(() -> l.onClose(status, trailers));
  }

  // ---- One attempt ----

  /** One attempt: a call on the channel below, and the listener that hears it. */
  private final class Attempt extends Listener<RespT> {
    final int index;
    /** Set before the call starts; the application's operations reach it only once {@link #live}. */
    volatile ClientCall<ReqT, RespT> call;
    /** The replay is done: guarded by the call's lock. */
    boolean live;
    long startNanos;
    volatile ScheduledFuture<?> recvTimer;
    volatile boolean headersReceived;
    volatile boolean timedOut;
    boolean lost;
    boolean cancelSent;
    volatile boolean closed;

    Attempt(int index) {
      this.index = index;
    }

    /**
     * Makes the call and replays what the application did so far, then goes live: from then on
     * the application's operations reach the call directly. Whatever the application does while
     * the replay runs is taken from the buffer by the next round, so nothing is lost or doubled.
     */
    void start() {
      startNanos = System.nanoTime();
      Metadata md = new Metadata();
      synchronized (RetryingCall.this) {
        md.merge(headers);
      }
      if (index > 0) {
        md.put(PREVIOUS_ATTEMPTS, Integer.toString(index));
      }
      ClientCall<ReqT, RespT> c;
      Context previous = context.attach();
      try {
        c = next.newCall(method, options);
      } finally {
        context.detach(previous);
      }
      call = c;
      c.start(this, md);
      int messagesDone = 0;
      int requestsDone = 0;
      boolean halfCloseDone = false;
      Boolean compressionDone = null;
      boolean cancel;
      while (true) {
        List<ReqT> batch;
        int moreRequests;
        boolean halfCloseNow;
        Boolean compressionNow;
        synchronized (RetryingCall.this) {
          if (lost || cancelled || RetryingCall.this.closed) {
            live = true;
            cancel = !cancelSent;
            cancelSent = true;
            break;
          }
          boolean pending = messagesDone < sent.size() || requestsDone != requested || halfCloseDone != halfClosed
              || compressionDone != compression;
          if (!pending) {
            live = true;
            cancel = false;
            if (committed == this) {
              clearBuffer();
            }
            break;
          }
          batch = new ArrayList<>(sent.subList(messagesDone, sent.size()));
          messagesDone = sent.size();
          moreRequests = requested - requestsDone;
          requestsDone = requested;
          halfCloseNow = halfClosed && !halfCloseDone;
          halfCloseDone = halfClosed;
          compressionNow = compression != compressionDone ? compression : null;
          compressionDone = compression;
        }
        if (compressionNow != null) {
          c.setMessageCompression(compressionNow);
        }
        if (moreRequests > 0) {
          c.request(moreRequests);
        }
        for (ReqT m : batch) {
          c.sendMessage(m);
        }
        if (halfCloseNow) {
          c.halfClose();
        }
      }
      if (cancel) {
        c.cancel(cancelled ? "the call was cancelled" : "another attempt of the call was committed", null);
        return;
      }
      if (retryPolicy != null && retryPolicy.perAttemptRecvTimeoutNanos().isPresent()) {
        try {
          recvTimer = channel.scheduler().schedule(this::recvTimedOut,
              retryPolicy.perAttemptRecvTimeoutNanos().getAsLong(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException channelTerminated) {
          recvTimer = null;
        }
        if (recvTimer != null && (headersReceived || closed)) {
          recvTimer.cancel(false);
        }
      }
    }

    private void recvTimedOut() {
      if (!headersReceived) {
        timedOut = true;
        call.cancel("no response headers within the retry policy's perAttemptRecvTimeout", null);
      }
    }

    /** This attempt has an answer: it is the call from now on, unless another one is. */
    private boolean commitHere() {
      boolean mine;
      synchronized (RetryingCall.this) {
        if (committed == null && !RetryingCall.this.closed) {
          commit(this);
        }
        mine = committed == this;
      }
      cancelLosers();
      return mine;
    }

    @Override
    public void onHeaders(Metadata responseHeaders) {
      headersReceived = true;
      if (recvTimer != null) {
        recvTimer.cancel(false);
      }
      if (throttle != null) {
        throttle.onSuccess();
      }
      if (commitHere()) {
        Listener<RespT> l = listener;
        deliver.execute(() -> l.onHeaders(responseHeaders));
      }
    }

    @Override
    public void onMessage(RespT message) {
      if (commitHere()) {
        Listener<RespT> l = listener;
        deliver.execute(() -> l.onMessage(message));
      }
    }

    @Override
    public void onReady() {
      boolean mine;
      synchronized (RetryingCall.this) {
        mine = committed == this || committed == null && latest == this;
      }
      if (mine) {
        Listener<RespT> l = listener;
        deliver.execute(l::onReady);
      }
    }

    @Override
    public void onClose(Status status, Metadata trailers) {
      if (recvTimer != null) {
        recvTimer.cancel(false);
      }
      boolean lostHere;
      boolean mine;
      synchronized (RetryingCall.this) {
        closed = true;
        active.remove(this);
        lostHere = lost;
        mine = committed == this;
      }
      if (!lostHere) {
        channel.breakers().record(call.getAttributes(),
            TransportBreakers.countsAgainst(status, headersReceived, timedOut), status, startNanos);
      }
      if (lostHere) {
        return;
      }
      if (status.isOk() && throttle != null && !headersReceived) {
        throttle.onSuccess();
      }
      if (mine || status.isOk()) {
        finish(status, trailers, this);
        return;
      }
      attemptFailed(this, status, trailers);
    }
  }
}
