package dev.tern.transport.udp.nio;

import dev.tern.rpc.spi.DatagramImpairment;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The event loop of one endpoint: a thread that owns a non-blocking {@link DatagramChannel}, the
 * endpoint's connections and every call into the sans-IO core. Other threads hand it work with
 * {@link #execute} (a queue and {@link Selector#wakeup()}); nothing in the core is locked.
 *
 * <p>Each turn runs the queued tasks, reads every datagram waiting, runs the connections' due
 * timers, lets the application {@link Pump} act, then sends what the connections have, and
 * sleeps in {@link Selector#select(long)} until the earliest timer (to the millisecond, rounded
 * up) or the next datagram or task. Buffers are allocated once per endpoint: the socket side
 * reads and writes direct buffers, the core works on heap buffers (its AEADs take arrays), and
 * each datagram is copied once between them, as the JDK itself does for heap buffers.
 *
 * <p>Only classes of Android API level 26 are used: no {@code sun.*}, no native code.
 */
public abstract class EndpointLoop implements Executor {
  /** Room for any UDP payload the protocol sends (1,500 at most) and then some. */
  static final int DATAGRAM_BYTES = 2048;
  /** Datagrams read in one turn before the timers and sends get their turn. */
  private static final int READ_BATCH = 64;
  /**
   * How late a timer of this loop may fire: {@link Selector#select(long)} counts milliseconds.
   * The connections' pacers are told ({@code ConnectionConfig.Builder#timerPrecisionNs}).
   */
  public static final long TIMER_PRECISION_NS = 1_000_000L;
  /** Turns in a row with a timer already due before the loop sleeps a millisecond anyway. */
  private static final int DUE_TURNS_BEFORE_SLEEP = 8;

  /** The socket; replaced only by a client that moves ({@link #replaceChannel}), on the loop. */
  volatile DatagramChannel channel;
  final Selector selector;
  SelectionKey key;
  final ByteBuffer rxDirect = ByteBuffer.allocateDirect(DATAGRAM_BYTES);
  final ByteBuffer rx = ByteBuffer.allocate(DATAGRAM_BYTES);
  final ByteBuffer txDirect = ByteBuffer.allocateDirect(DATAGRAM_BYTES);
  final ByteBuffer tx = ByteBuffer.allocate(DATAGRAM_BYTES);
  /** Whether {@link #txDirect} holds a datagram the socket refused for want of buffer space. */
  boolean txPending;
  private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean wakeupPending = new AtomicBoolean();
  private final CompletableFuture<Void> terminated = new CompletableFuture<>();
  private final Thread thread;
  private volatile boolean accepting = true;
  private boolean stopping;
  private volatile Throwable failure;
  private volatile Pump pump = Pump.NONE;
  private int dueTurns;
  /** Datagrams moved in the current turn, in either direction. */
  int moved;
  /** Test-only impairment of this endpoint's datagrams ({@link #impair}); null without one. */
  Impairer impairer;
  /** Where the impairment hands the datagrams it lets through. */
  final Impairer.Endpoint impaired = new Impairer.Endpoint() {
    @Override
    public void deliver(ByteBuffer datagram, SocketAddress from, long nowNs) throws IOException {
      EndpointLoop.this.deliver(datagram, from, nowNs);
    }

    @Override
    public void sendCopy(ByteBuffer datagram, SocketAddress to) {
      EndpointLoop.this.sendCopy(datagram, to);
    }
  };

  EndpointLoop(DatagramChannel channel, String threadName) throws IOException {
    this.channel = channel;
    channel.configureBlocking(false);
    this.selector = Selector.open();
    this.key = channel.register(selector, SelectionKey.OP_READ);
    this.thread = new Thread(this::run, threadName);
    thread.setDaemon(true);
  }

  /** Starts the thread; called once by the factory once the subclass is built. */
  final void start() {
    thread.start();
  }

  /**
   * Runs {@code task} on the loop thread, after the tasks queued before it (also when called
   * from the loop thread itself: never inline, so that callers inside a core callback never
   * re-enter the core).
   *
   * @throws RejectedExecutionException once the endpoint has terminated or is terminating
   */
  @Override
  public final void execute(Runnable task) {
    if (!accepting) {
      throw new RejectedExecutionException("the UDP endpoint " + this + " has terminated");
    }
    tasks.add(task);
    if (Thread.currentThread() != thread && wakeupPending.compareAndSet(false, true)) {
      selector.wakeup();
    }
  }

  /** Like {@link #execute} but returns false instead of throwing once the endpoint is gone. */
  public final boolean tryExecute(Runnable task) {
    try {
      execute(task);
      return true;
    } catch (RejectedExecutionException e) {
      return false;
    }
  }

  /** Whether the caller runs on this endpoint's loop thread. */
  public final boolean inLoop() {
    return Thread.currentThread() == thread;
  }

  /**
   * Impairs this endpoint's datagrams from now on, both directions, as {@code impairment} says
   * (drops, duplicates, reorders, delays what it receives): for tests that need real I/O under
   * loss. Any thread; takes effect on the loop's next turn (before its first one, if the loop has
   * not started).
   *
   * @param impairment the impairment, or null for none
   */
  public final void impair(DatagramImpairment impairment) {
    tryExecute(() -> impairer = impairment == null ? null : new Impairer(impairment));
  }

  /** Datagrams the impairment dropped so far, both directions; on the loop. */
  final long impairmentDrops() {
    Impairer i = impairer;
    return i == null ? 0 : i.dropped();
  }

  /** Sets what the application does each turn; on the loop or before the first turn. */
  public final void setPump(Pump pump) {
    this.pump = pump == null ? Pump.NONE : pump;
  }

  /** Completes (on the loop thread, as its last act) once the socket is closed. */
  public final CompletableFuture<Void> terminated() {
    return terminated;
  }

  /** The I/O error or failure that ended the loop, or null if it ended normally or runs. */
  public final Throwable failure() {
    return failure;
  }

  /** The local address the socket is bound to. */
  public final InetSocketAddress localAddress() {
    try {
      return (InetSocketAddress) channel.getLocalAddress();
    } catch (IOException e) {
      return null;
    }
  }

  /**
   * Puts {@code next} in the place of the socket (on the loop): it is registered for what the old
   * one was (reads, and writability while a datagram waits for buffer space, which the new one
   * then sends), and the old one is closed.
   *
   * @throws IOException if {@code next} cannot be made non-blocking or registered; the old socket
   *     is then still in place
   */
  final void replaceChannel(DatagramChannel next) throws IOException {
    next.configureBlocking(false);
    SelectionKey nextKey = next.register(selector, key.interestOps());
    DatagramChannel old = channel;
    key.cancel();
    channel = next;
    key = nextKey;
    try {
      old.close();
    } catch (IOException ignored) {
      // nothing to release beyond the descriptor
    }
  }

  /** Ends the loop after the current turn, closing the socket; on the loop. */
  final void stop() {
    stopping = true;
  }

  /** Ends the loop at once with {@code cause}, from the loop. */
  final void fail(Throwable cause) {
    if (failure == null) {
      failure = cause;
    }
    stopping = true;
  }

  /** Reads the waiting datagrams (at most {@code batch}) and hands them to the core. */
  abstract void receive(long nowNs, int batch) throws IOException;

  /** Runs the connections' timers due at {@code nowNs}. */
  abstract void runTimers(long nowNs);

  /** Sends what the connections have to send. */
  abstract void send(long nowNs) throws IOException;

  /** After the sends: reaps closed connections, and calls {@link #stop()} when done. */
  abstract void afterTurn(long nowNs);

  /** The earliest timer of any connection ({@link System#nanoTime()} base), or Long.MAX_VALUE. */
  abstract long nextTimeoutNs();

  /**
   * Hands a received datagram to the core (from {@link #receive}, or from the impairment); on the
   * loop.
   *
   * @param datagram the datagram, from its position to its limit; the core may change its bytes
   * @param from the address it came from (null on a connected client socket)
   */
  abstract void deliver(ByteBuffer datagram, SocketAddress from, long nowNs) throws IOException;

  /** Sends a copy of a datagram to {@code to} at once, best effort; on the loop. */
  abstract void sendCopy(ByteBuffer datagram, SocketAddress to);

  /**
   * Receives one datagram read from the socket: into the impairment if there is one, to
   * {@link #deliver} otherwise.
   */
  final void received(ByteBuffer datagram, SocketAddress from, long nowNs) throws IOException {
    if (impairer != null) {
      impairer.inbound(datagram, from, nowNs, impaired);
    } else {
      deliver(datagram, from, nowNs);
    }
  }

  /** On the loop, when it ends (normally or not), before the socket closes. */
  void onStop() {}

  /** Asks for OP_WRITE while a refused datagram waits, OP_READ alone otherwise. */
  final void wantWrite(boolean want) {
    key.interestOps(want ? SelectionKey.OP_READ | SelectionKey.OP_WRITE : SelectionKey.OP_READ);
  }

  private void run() {
    try {
      while (true) {
        runTasks();
        if (stopping) {
          break;
        }
        moved = 0;
        receive(System.nanoTime(), READ_BATCH);
        long now = System.nanoTime();
        if (impairer != null) {
          impairer.releaseDue(now, impaired);
        }
        runTimers(now);
        pump.pump(now);
        runTasks();
        send(now);
        afterTurn(now);
        if (stopping) {
          break;
        }
        sleep();
      }
    } catch (Throwable t) {
      fail(t);
    } finally {
      accepting = false;
      try {
        onStop();
      } catch (RuntimeException e) {
        fail(e);
      }
      try {
        selector.close();
      } catch (IOException ignored) {
        // nothing to release beyond the descriptor
      }
      try {
        channel.close();
      } catch (IOException ignored) {
        // nothing to release beyond the descriptor
      }
      tasks.clear();
      terminated.complete(null);
    }
  }

  private void runTasks() {
    Runnable task;
    while ((task = tasks.poll()) != null) {
      task.run();
    }
  }

  /** Waits for a datagram, a task, writability or the next timer, whichever comes first. */
  private void sleep() throws IOException {
    wakeupPending.set(false);
    if (!tasks.isEmpty()) {
      selector.selectNow();
      selector.selectedKeys().clear();
      return;
    }
    long next = Math.min(nextTimeoutNs(), pump.nextDeadlineNs());
    if (impairer != null) {
      next = Math.min(next, impairer.nextReleaseNs());
    }
    long now = System.nanoTime();
    if (next == Long.MAX_VALUE) {
      dueTurns = 0;
      selector.select();
    } else if (next - now <= 0) {
      // A timer already due: the next turn runs it. One that stays due though nothing moved
      // (a pacing gap below the clock's resolution, a probe with nothing to send) must not spin.
      if (moved == 0 && ++dueTurns > DUE_TURNS_BEFORE_SLEEP) {
        dueTurns = 0;
        selector.select(1);
      } else {
        selector.selectNow();
      }
    } else {
      dueTurns = 0;
      long ms = (next - now + 999_999) / 1_000_000;
      selector.select(ms);
    }
    // One channel per selector: every turn reads until the socket is empty, so the selected
    // set is only cleared (no iterator).
    selector.selectedKeys().clear();
  }
}
