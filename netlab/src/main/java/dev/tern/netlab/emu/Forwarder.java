package dev.tern.netlab.emu;

import com.sun.jna.Memory;
import dev.tern.netlab.link.Delivery;
import dev.tern.netlab.link.Link;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One direction of the emulator: a reader thread takes IP packets from the ingress TUN, passes
 * each through the direction's {@link Link} at the real time of its arrival and schedules the
 * copies on a {@link DelayLine}; a writer thread writes them to the egress TUN when due. The link
 * is single-threaded by design: the reader thread uses it under a lock that counter snapshots
 * and {@link #replaceLink} also take.
 */
final class Forwarder {
  private static final int POLL_MS = 100;
  private static final int MAX_WAITING = 65_536;

  private final String dir;
  private final Tun in;
  private final Tun out;
  private final Object linkLock = new Object();
  private Link link;
  private final PacketLog log;
  private final DelayLine line = new DelayLine(MAX_WAITING);
  private final Memory readMem = new Memory(65_536);
  private final ByteBuffer readView = readMem.getByteBuffer(0, 65_536).order(ByteOrder.BIG_ENDIAN);
  private final Delivery delivery = new Delivery();
  private final SplittableRandom corruptBits;
  private final Thread reader;
  private final Thread writer;
  private volatile boolean running = true;
  private volatile boolean blockUdp;
  private volatile Throwable failure;

  private final AtomicLong blockedUdp = new AtomicLong();
  private final AtomicLong written = new AtomicLong();
  private final AtomicLong overflow = new AtomicLong();
  private final AtomicLong writeErrors = new AtomicLong();
  private final AtomicLong lateNsTotal = new AtomicLong();
  private final AtomicLong lateNsMax = new AtomicLong();

  Forwarder(String dir, Tun in, Tun out, Link link, PacketLog log, long seed) {
    this.dir = dir;
    this.in = in;
    this.out = out;
    this.link = link;
    this.log = log;
    this.corruptBits = new SplittableRandom(seed);
    this.reader = new Thread(this::readLoop, "netlab-" + dir + "-reader");
    this.writer = new Thread(this::writeLoop, "netlab-" + dir + "-writer");
    reader.setDaemon(true);
    writer.setDaemon(true);
    writer.setPriority(Thread.MAX_PRIORITY);
  }

  void start() {
    writer.start();
    reader.start();
  }

  /**
   * Raises the calling thread's scheduling priority so that on a busy machine the emulator's
   * timing suffers less from other work than the programs it carries: real-time SCHED_FIFO at a
   * low priority (the threads block between packets, and the kernel's real-time throttling still
   * bounds them), else nice -10. Best effort; {@code -Dtern.netlab.realtime=false} keeps the
   * default policy.
   */
  static void raisePriority() {
    if ("false".equals(System.getProperty("tern.netlab.realtime"))) {
      return;
    }
    int tid = LibC.gettid();
    try {
      com.sun.jna.Memory param = new com.sun.jna.Memory(4);
      param.setInt(0, 10);
      LibC.sched_setscheduler(tid, 1 /* SCHED_FIFO */, param);
      return;
    } catch (RuntimeException | UnsatisfiedLinkError notPermitted) {
      // fall back to a better nice value
    }
    try {
      LibC.setpriority(0 /* PRIO_PROCESS: a thread id on Linux */, tid, -10);
    } catch (RuntimeException | UnsatisfiedLinkError ignored) {
      // Not permitted: run at normal priority.
    }
  }

  private void readLoop() {
    raisePriority();
    int emptyReads = 0;
    try {
      while (running) {
        if (!in.awaitReadable(POLL_MS)) {
          if (log != null) {
            log.flush();
          }
          continue;
        }
        int n = in.read(readMem, 65_536);
        if (n > 0) {
          emptyReads = 0;
          forward(n);
        } else if (++emptyReads > 10_000) {
          // Readable yet empty, again and again: never spin (these threads may run real-time).
          throw new IllegalStateException("TUN " + in.name() + " keeps returning no packet");
        }
      }
    } catch (Throwable t) {
      if (running) {
        failure = t;
      }
    }
  }

  private void forward(int n) {
    long nowNs = System.nanoTime();
    if (blockUdp && Headers.isUdp(readView, n)) {
      // A middlebox that filters UDP drops it silently, before the link: no ICMP, no copy.
      blockedUdp.incrementAndGet();
      if (log != null) {
        log.recordBlocked(nowNs, dir, readView, n);
      }
      return;
    }
    int copies;
    synchronized (linkLock) {
      copies = link.send(nowNs, n, delivery);
    }
    if (log != null) {
      log.record(nowNs, dir, readView, n, copies, delivery);
    }
    for (int i = 0; i < copies; i++) {
      DelayLine.Slot s = n <= DelayLine.SLOT_BYTES ? line.acquire() : null;
      if (s == null) {
        overflow.incrementAndGet();
        continue;
      }
      s.view.clear();
      readView.limit(n).position(0);
      s.view.put(readView);
      readView.clear();
      s.len = n;
      if (delivery.corrupted(i)) {
        corrupt(s);
      }
      line.schedule(s, delivery.deliverAtNs(i));
    }
  }

  /** Flips one random bit after the IP header, so the transport's checksum or AEAD sees it. */
  private void corrupt(DelayLine.Slot s) {
    int headerBytes = s.len >= 20 && (s.view.get(0) & 0xf0) == 0x40 ? (s.view.get(0) & 0x0f) * 4
        : s.len >= 40 ? 40 : 0;
    int span = s.len - headerBytes;
    int at = span > 0 ? headerBytes + corruptBits.nextInt(span) : corruptBits.nextInt(s.len);
    s.view.put(at, (byte) (s.view.get(at) ^ (1 << corruptBits.nextInt(8))));
  }

  private void writeLoop() {
    raisePriority();
    try {
      DelayLine.Slot s;
      while ((s = line.takeDue()) != null) {
        try {
          out.write(s.mem, s.len);
          long late = System.nanoTime() - s.atNs;
          written.incrementAndGet();
          lateNsTotal.addAndGet(late);
          if (late > lateNsMax.get()) {
            lateNsMax.set(late); // only this thread writes it
          }
        } catch (RuntimeException e) {
          writeErrors.incrementAndGet();
        } finally {
          line.release(s);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Throwable t) {
      if (running) {
        failure = t;
      }
    }
  }

  /** Stops both threads and waits for them. */
  void stop() throws InterruptedException {
    running = false;
    line.close();
    reader.join(2_000);
    writer.join(2_000);
  }

  /** The failure that stopped a thread, or null. */
  Throwable failure() {
    return failure;
  }

  /** Drops every UDP packet from now on ({@code true}) or forwards them again ({@code false}). */
  void blockUdp(boolean block) {
    blockUdp = block;
  }

  /** Swaps in a fresh link (new epoch, zero counters); packets already scheduled still leave. */
  void replaceLink(Link fresh) {
    synchronized (linkLock) {
      link = fresh;
    }
  }

  /** A consistent copy of the link's counters plus the forwarder's own. */
  LinkCounters counters() {
    synchronized (linkLock) {
      return new LinkCounters(dir, link.sentPackets(), link.sentBytes(), link.deliveredPackets(),
          link.droppedQueueFull(), link.droppedRandomLoss(), link.droppedBurstLoss(),
          link.duplicated(), link.corrupted(), link.reordered(), blockedUdp.get(), written.get(), overflow.get(),
          writeErrors.get(), written.get() == 0 ? 0 : lateNsTotal.get() / written.get(),
          lateNsMax.get());
    }
  }
}
