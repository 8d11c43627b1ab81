package dev.tern.netlab.emu;

import com.sun.jna.Memory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Packets waiting for their delivery time: a binary heap ordered by (time, arrival order) of
 * pooled native buffers, filled by one forwarding thread and drained by one writer thread that
 * parks until the earliest packet is due (sub-millisecond, {@code LockSupport.parkNanos}
 * precision). Slots are recycled, so steady-state forwarding allocates nothing.
 */
final class DelayLine {
  /** Largest packet a slot holds; the TUNs run with MTU 1500. */
  static final int SLOT_BYTES = 2048;

  /** One pooled packet buffer. */
  static final class Slot {
    final Memory mem = new Memory(SLOT_BYTES);
    final ByteBuffer view = mem.getByteBuffer(0, SLOT_BYTES).order(ByteOrder.BIG_ENDIAN);
    int len;
    long atNs;
    long seq;
  }

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final ArrayDeque<Slot> free = new ArrayDeque<>();
  private final int maxSlots;
  private Slot[] heap = new Slot[256];
  private int size;
  private int allocated;
  private long nextSeq;
  private boolean closed;

  DelayLine(int maxSlots) {
    this.maxSlots = maxSlots;
  }

  /** A free slot, or null when {@code maxSlots} packets are already waiting. */
  Slot acquire() {
    lock.lock();
    try {
      Slot s = free.pollFirst();
      if (s == null && allocated < maxSlots) {
        allocated++;
        s = new Slot();
      }
      return s;
    } finally {
      lock.unlock();
    }
  }

  /** Queues a filled slot for delivery at {@code atNs}. */
  void schedule(Slot s, long atNs) {
    lock.lock();
    try {
      s.atNs = atNs;
      s.seq = nextSeq++;
      if (size == heap.length) {
        heap = java.util.Arrays.copyOf(heap, size * 2);
      }
      int i = size++;
      heap[i] = s;
      siftUp(i);
      if (i == 0 || heap[0] == s) {
        changed.signal();
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Blocks until the earliest packet is due and removes it; returns null once closed.
   */
  Slot takeDue() throws InterruptedException {
    lock.lock();
    try {
      while (!closed) {
        if (size == 0) {
          changed.await();
          continue;
        }
        long wait = heap[0].atNs - System.nanoTime();
        if (wait <= 0) {
          Slot s = heap[0];
          heap[0] = heap[--size];
          heap[size] = null;
          if (size > 0) {
            siftDown(0);
          }
          return s;
        }
        changed.awaitNanos(wait);
      }
      return null;
    } finally {
      lock.unlock();
    }
  }

  /** Returns a delivered slot to the pool. */
  void release(Slot s) {
    lock.lock();
    try {
      free.addFirst(s);
    } finally {
      lock.unlock();
    }
  }

  /** Packets waiting. */
  int waiting() {
    lock.lock();
    try {
      return size;
    } finally {
      lock.unlock();
    }
  }

  /** Wakes the writer and makes {@link #takeDue} return null. */
  void close() {
    lock.lock();
    try {
      closed = true;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private static boolean before(Slot a, Slot b) {
    return a.atNs < b.atNs || (a.atNs == b.atNs && a.seq < b.seq);
  }

  private void siftUp(int i) {
    Slot s = heap[i];
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (!before(s, heap[parent])) {
        break;
      }
      heap[i] = heap[parent];
      i = parent;
    }
    heap[i] = s;
  }

  private void siftDown(int i) {
    Slot s = heap[i];
    int half = size >>> 1;
    while (i < half) {
      int child = 2 * i + 1;
      int right = child + 1;
      if (right < size && before(heap[right], heap[child])) {
        child = right;
      }
      if (!before(heap[child], s)) {
        break;
      }
      heap[i] = heap[child];
      i = child;
    }
    heap[i] = s;
  }
}
