package dev.tern.rpc;

import dev.tern.rpc.spi.ClientStream;
import io.grpc.Status;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The stream of a call that has no transport yet (connecting, or waiting for call credentials):
 * records what the call does and replays it, in order, onto the real stream once there is one.
 */
final class DelayedClientStream implements ClientStream {
  private final Consumer<Status> closeWithoutStream;
  private List<Consumer<ClientStream>> pending = new ArrayList<>();
  private volatile ClientStream real;
  private Status cancelled;

  /** {@code closeWithoutStream} closes the call when it is cancelled before a stream exists. */
  DelayedClientStream(Consumer<Status> closeWithoutStream) {
    this.closeWithoutStream = closeWithoutStream;
  }

  /** Sets the real stream and replays the recorded operations; cancels it if the call already ended. */
  void setStream(ClientStream stream) {
    Status cancel;
    while (true) {
      List<Consumer<ClientStream>> ops;
      synchronized (this) {
        cancel = cancelled;
        if (cancel != null || pending.isEmpty()) {
          real = stream;
          pending = null;
          break;
        }
        ops = pending;
        pending = new ArrayList<>();
      }
      for (Consumer<ClientStream> op : ops) {
        op.accept(stream);
      }
    }
    if (cancel != null) {
      stream.cancel(cancel);
    }
  }

  /** Runs {@code op} on the real stream now, or when it is set (in order with the other operations). */
  void run(Consumer<ClientStream> op) {
    ClientStream s = real;
    if (s == null) {
      synchronized (this) {
        s = real;
        if (s == null) {
          if (cancelled == null) {
            pending.add(op);
          }
          return;
        }
      }
    }
    op.accept(s);
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
      s = real;
      if (s == null) {
        if (cancelled != null) {
          return;
        }
        cancelled = status;
        pending.clear();
      }
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

  /** Whether the real stream is attached. */
  boolean hasStream() {
    return real != null;
  }
}
