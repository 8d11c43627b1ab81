package dev.tern.transport.udp.stream;

import java.util.ArrayDeque;

/**
 * Plain round robin over ready streams, one frame each in turn, ignoring priorities. The
 * deque's backing array grows with the number of streams only; steady state allocates nothing.
 */
public final class RoundRobinScheduler implements SendScheduler {
  private final ArrayDeque<Stream> ready = new ArrayDeque<>();

  @Override
  public void markReady(Stream stream) {
    if (!stream.scheduled) {
      stream.scheduled = true;
      ready.addLast(stream);
    }
  }

  @Override
  public void remove(Stream stream) {
    if (stream.scheduled) {
      stream.scheduled = false;
      ready.remove(stream);
    }
  }

  @Override
  public Stream next() {
    return ready.peekFirst();
  }

  @Override
  public void onEmitted(Stream stream, boolean stillReady) {
    if (ready.peekFirst() == stream) {
      ready.pollFirst();
      if (stillReady) {
        ready.addLast(stream);
      } else {
        stream.scheduled = false;
      }
    } else if (!stillReady) {
      remove(stream);
    }
  }

  @Override
  public boolean isEmpty() {
    return ready.isEmpty();
  }
}
