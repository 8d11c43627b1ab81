package dev.tern.rpc;

import dev.tern.rpc.spi.ClientStream;
import io.grpc.Status;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The stream of a call as the call layer sees it. Before a transport stream exists (connecting,
 * waiting for call credentials) it records what the call does and replays it, in order, once there
 * is one. Until the call is committed (the first response arrived, the call ended, or it sent more
 * than the replay limits allow) it keeps that record, so that a stream the
 * transport reports as refused unprocessed can be replayed onto a stream of another connection:
 * grpc-java's transparent retry.
 */
final class DelayedClientStream implements ClientStream {
  /** The default of {@link #perCallLimit}: grpc-java's {@code perRpcBufferLimit}, 1 MiB. */
  static final long REPLAY_LIMIT_BYTES = 1 << 20;

  private final Consumer<Status> closeWithoutStream;
  /** Most request bytes this call keeps for a replay; past it, it is committed. */
  private final long perCallLimit;
  /** What the channel's uncommitted calls keep together, and the most they may. */
  private final AtomicLong channelBuffered;
  private final long channelLimit;
  /**
   * The operations not yet given to {@link #real} (from {@link #sent}) and, while not committed,
   * the ones already given (before {@link #sent}), kept for a replay.
   */
  private final ArrayList<Consumer<ClientStream>> ops = new ArrayList<>(4);
  private int sent;
  private long bytes;
  private boolean committed;
  private volatile ClientStream real;
  /** The stream {@link #setStream} is replaying the record onto, before it is {@link #real}. */
  private ClientStream attaching;
  /** The real stream once nothing needs recording: operations go straight to it. */
  private volatile ClientStream direct;
  private volatile boolean attached;
  private Status cancelled;
  /** Numbers the streams asked of a transport ({@link #creating}); the one being created, or 0. */
  private int generation;
  private int creatingGeneration;
  /** A stream the transport refused inside {@code newStream}, before it was set: never attached. */
  private int refusedGeneration;

  /** {@code closeWithoutStream} closes the call when it is cancelled while no stream is attached. */
  DelayedClientStream(Consumer<Status> closeWithoutStream) {
    this(closeWithoutStream, REPLAY_LIMIT_BYTES, new AtomicLong(), Long.MAX_VALUE);
  }

  /**
   * As grpc-java's retry buffers: the call keeps at most {@code perCallLimit} request bytes for a
   * replay, and the channel's calls together at most {@code channelLimit} (counted in {@code
   * channelBuffered}); a call past either is committed.
   */
  DelayedClientStream(Consumer<Status> closeWithoutStream, long perCallLimit, AtomicLong channelBuffered,
      long channelLimit) {
    this.closeWithoutStream = closeWithoutStream;
    this.perCallLimit = perCallLimit;
    this.channelBuffered = channelBuffered;
    this.channelLimit = channelLimit;
  }

  /**
   * Sets the real stream and replays the recorded operations; cancels it if the call already
   * ended. If the stream is refused while the replay runs ({@link #detachForReplay}), it stops
   * and the stream is not attached.
   */
  void setStream(ClientStream stream) {
    setStream(stream, 0);
  }

  /**
   * Says that a stream is being asked of a transport for this call: a refusal that comes inside
   * {@code newStream}, before the stream can be set, then detaches it all the same.
   *
   * @return the number to give {@link #setStream(ClientStream, int)} with that stream
   */
  synchronized int creating() {
    creatingGeneration = ++generation;
    return creatingGeneration;
  }

  /**
   * As {@link #setStream(ClientStream)} for the stream numbered {@code streamGeneration} by {@link
   * #creating}; a stream refused while it was created is not attached (another took its place).
   */
  void setStream(ClientStream stream, int streamGeneration) {
    Status cancel;
    synchronized (this) {
      if (streamGeneration != 0) {
        if (creatingGeneration == streamGeneration) {
          creatingGeneration = 0;
        }
        if (refusedGeneration == streamGeneration) {
          return; // refused inside newStream: the call was replayed elsewhere, or ended
        }
      }
      attaching = stream;
    }
    while (true) {
      List<Consumer<ClientStream>> batch;
      synchronized (this) {
        if (attaching != stream) {
          return; // refused while its operations were replayed: another stream takes over
        }
        cancel = cancelled;
        if (cancel != null || sent == ops.size()) {
          real = stream;
          attaching = null;
          attached = true;
          if (cancel == null && committed) {
            direct = stream;
          }
          break;
        }
        batch = new ArrayList<>(ops.subList(sent, ops.size()));
        sent = ops.size();
        if (committed) {
          ops.clear();
          sent = 0;
        }
      }
      for (Consumer<ClientStream> op : batch) {
        op.accept(stream);
      }
    }
    if (cancel != null) {
      stream.cancel(cancel);
    }
  }

  /** Runs {@code op} on the real stream now, or when it is set (in order with the other operations). */
  void run(Consumer<ClientStream> op) {
    run(op, 0);
  }

  /**
   * As {@link #run(Consumer)}, for an operation that sends {@code requestBytes} of messages, which
   * count against the replay limits.
   */
  void run(Consumer<ClientStream> op, long requestBytes) {
    ClientStream s = direct;
    if (s == null) {
      synchronized (this) {
        if (!committed && requestBytes > 0) {
          bytes += requestBytes;
          long total = channelBuffered.addAndGet(requestBytes);
          if (bytes > perCallLimit || total > channelLimit) {
            commitLocked();
          }
        }
        s = real;
        if (s == null) {
          if (cancelled == null) {
            ops.add(op);
          }
          return;
        }
        if (!committed) {
          ops.add(op);
          sent++;
        }
      }
    }
    op.accept(s);
  }

  /** The call can no longer be replayed (a response arrived, or it ended): forget the record. */
  synchronized void commit() {
    commitLocked();
  }

  private void commitLocked() {
    if (committed) {
      return;
    }
    committed = true;
    channelBuffered.addAndGet(-bytes);
    bytes = 0;
    ops.subList(0, sent).clear();
    sent = 0;
    if (real != null && cancelled == null) {
      direct = real;
    }
  }

  /**
   * Detaches the real stream, which the transport refused unprocessed, so that the record can be
   * replayed onto another one by {@link #setStream}.
   *
   * @return false if the call cannot be replayed (committed, cancelled, or no stream attached)
   */
  synchronized boolean detachForReplay() {
    if (committed || cancelled != null) {
      return false;
    }
    if (real == null && attaching == null && creatingGeneration != 0) {
      // Refused inside newStream (a transport shut down a moment ago): nothing was given to it.
      refusedGeneration = creatingGeneration;
      creatingGeneration = 0;
      sent = 0;
      return true;
    }
    if (real == null && attaching == null) {
      return false;
    }
    real = null;
    attaching = null;
    attached = false;
    sent = 0;
    return true;
  }

  @Override
  public void writeMessage(ByteBuffer message) {
    run(s -> s.writeMessage(message));
  }

  @Override
  public void flush() {
    run(ClientStream::flush);
  }

  @Override
  public void request(int numMessages) {
    run(s -> s.request(numMessages));
  }

  @Override
  public void halfClose() {
    run(ClientStream::halfClose);
  }

  @Override
  public void cancel(Status status) {
    ClientStream s;
    synchronized (this) {
      if (cancelled != null) {
        return;
      }
      cancelled = status;
      s = real;
      if (!committed) {
        channelBuffered.addAndGet(-bytes);
        bytes = 0;
      }
      committed = true;
      direct = null;
      ops.clear();
      sent = 0;
    }
    if (s != null) {
      s.cancel(status);
    } else {
      closeWithoutStream.accept(status);
    }
  }

  @Override
  public boolean isReady() {
    ClientStream s = real;
    return s != null && s.isReady();
  }

  /** Whether a real stream is attached. */
  boolean hasStream() {
    return attached;
  }
}
