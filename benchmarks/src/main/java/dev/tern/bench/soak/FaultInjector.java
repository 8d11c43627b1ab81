package dev.tern.bench.soak;

import dev.tern.bench.service.BenchMessages;
import dev.tern.bench.service.BenchService;
import dev.tern.conformance.DatagramRelay;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Injects the faults of a run's plan, one at a time, each for its window, on a thread of its own;
 * the steady load goes on meanwhile. What each fault did (datagrams dropped or sent, the storms'
 * calls by outcome, what a stalled stream let the server commit) is written into its window.
 */
final class FaultInjector implements Runnable {
  /** Storm calls in flight at most, per transport. */
  static final int MAX_STORM_IN_FLIGHT = 256;
  /** Size of the stalled reader's download: far beyond every flow-control window. */
  static final long STALLED_BYTES = 64L << 20;

  /**
   * One planned fault.
   *
   * @param fault what
   * @param startNanos when, on the run's clock
   * @param lengthNanos for how long
   */
  record Planned(Fault fault, long startNanos, long lengthNanos) {}

  private final FaultLog log;
  private final List<TransportLoad> loads;
  private final List<DatagramRelay> relays;
  private final List<InetSocketAddress> datagramPorts;
  private final List<Planned> plan;
  private final long seed;
  private volatile boolean stopped;

  /**
   * An injector of {@code plan}; {@link #run} injects it.
   *
   * @param log where windows are recorded
   * @param loads the channels the storms and the stalled reader use
   * @param relays the relays the datagram channels go through
   * @param datagramPorts the server's quic and udp addresses, for the random datagrams
   * @param plan the faults in order
   * @param seed seeds the random datagrams
   */
  FaultInjector(FaultLog log, List<TransportLoad> loads, List<DatagramRelay> relays,
      List<InetSocketAddress> datagramPorts, List<Planned> plan, long seed) {
    this.log = log;
    this.loads = loads;
    this.relays = relays;
    this.datagramPorts = datagramPorts;
    this.plan = plan;
    this.seed = seed;
  }

  /**
   * The plan of a run: the faults in turn, the first after {@code gapNanos}, each lasting {@code
   * lengthNanos} and followed by {@code gapNanos} without a fault, the last ending at least {@code
   * gapNanos} before the run does so that the run ends on quiet samples.
   */
  static List<Planned> plan(long runNanos, long gapNanos, long lengthNanos) {
    List<Planned> out = new ArrayList<>();
    Fault[] kinds = Fault.values();
    long t = gapNanos;
    for (int i = 0; t + lengthNanos + gapNanos <= runNanos; i++, t += lengthNanos + gapNanos) {
      out.add(new Planned(kinds[i % kinds.length], t, lengthNanos));
    }
    return out;
  }

  /** Stops after the fault in progress. */
  void stop() {
    stopped = true;
  }

  @Override
  public void run() {
    for (Planned p : plan) {
      if (!sleepUntil(p.startNanos())) {
        return;
      }
      FaultLog.Window w = log.open(p.fault());
      long end = p.startNanos() + p.lengthNanos();
      try {
        switch (p.fault()) {
          case DROP -> drop(w, end);
          case GARBAGE -> garbage(w, end);
          case DEADLINE_STORM -> storm(w, end, false);
          case CANCEL_STORM -> storm(w, end, true);
          case STALLED_READER -> stalledReader(w, end);
          default -> throw new IllegalStateException(p.fault().name());
        }
      } catch (RuntimeException | IOException e) {
        w.detail.put("error", String.valueOf(e));
      } finally {
        log.close(w);
      }
    }
  }

  private boolean sleepUntil(long atNanos) {
    try {
      long wait;
      while (!stopped && (wait = atNanos - log.now()) > 0) {
        TimeUnit.NANOSECONDS.sleep(Math.min(wait, 100_000_000L));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
    return !stopped;
  }

  private void drop(FaultLog.Window w, long end) {
    long before = 0;
    for (DatagramRelay r : relays) {
      before += r.dropped();
      r.mode(DatagramRelay.Mode.DROP_BOTH);
    }
    try {
      sleepUntil(end);
    } finally {
      long after = 0;
      for (DatagramRelay r : relays) {
        r.mode(DatagramRelay.Mode.FORWARD);
        after += r.dropped();
      }
      w.detail.put("datagramsDropped", after - before);
    }
  }

  private void garbage(FaultLog.Window w, long end) throws IOException {
    Random rnd = new Random(seed + w.index);
    byte[] buf = new byte[1400];
    long sent = 0;
    try (DatagramSocket s = new DatagramSocket()) {
      while (!stopped && log.now() < end) {
        for (InetSocketAddress to : datagramPorts) {
          for (int i = 0; i < 2; i++) {
            int n = 1 + rnd.nextInt(buf.length);
            rnd.nextBytes(buf);
            s.send(new DatagramPacket(buf, n, to));
            sent++;
          }
        }
        sleepMillis(1);
      }
    }
    w.detail.put("datagramsSent", sent);
  }

  /**
   * Unary calls on every channel, one per channel every millisecond or so, bounded by {@link
   * #MAX_STORM_IN_FLIGHT} per channel: with a 1 ms deadline, or cancelled as soon as they start
   * (every other one a moment later, from a timer).
   */
  private void storm(FaultLog.Window w, long end, boolean cancel) {
    Map<String, LongAdder> outcomes = new ConcurrentHashMap<>();
    List<Semaphore> slots = new ArrayList<>();
    for (int i = 0; i < loads.size(); i++) {
      slots.add(new Semaphore(MAX_STORM_IN_FLIGHT));
    }
    AtomicLong started = new AtomicLong();
    long n = 0;
    while (!stopped && log.now() < end) {
      for (int i = 0; i < loads.size(); i++) {
        Semaphore slot = slots.get(i);
        if (!slot.tryAcquire()) {
          continue;
        }
        TransportLoad l = loads.get(i);
        CallOptions opts = cancel ? CallOptions.DEFAULT
            : CallOptions.DEFAULT.withDeadlineAfter(1, TimeUnit.MILLISECONDS);
        ClientCall<byte[], byte[]> call = l.channel.newCall(BenchService.UNARY, opts);
        started.incrementAndGet();
        StreamObserver<byte[]> count = new StreamObserver<>() {
          @Override
          public void onNext(byte[] value) {}

          @Override
          public void onError(Throwable t) {
            slot.release();
            outcomes.computeIfAbsent(Status.fromThrowable(t).getCode().name(), k -> new LongAdder()).increment();
          }

          @Override
          public void onCompleted() {
            slot.release();
            outcomes.computeIfAbsent("OK", k -> new LongAdder()).increment();
          }
        };
        try {
          ClientCalls.asyncUnaryCall(call, BenchMessages.unaryRequest(TransportLoad.UNARY_BYTES,
              TransportLoad.UNARY_BYTES, System.nanoTime()), count);
          if (cancel && n % 2 == 0) {
            call.cancel("cancelled by the soak's storm", null);
          } else if (cancel) {
            SoakMain.TIMER.schedule(() -> call.cancel("cancelled by the soak's storm", null),
                n % 3, TimeUnit.MILLISECONDS);
          }
        } catch (RuntimeException e) {
          count.onError(e);
        }
        n++;
      }
      sleepMillis(1);
    }
    w.detail.put("callsStarted", started.get());
    Map<String, Long> byCode = new java.util.TreeMap<>();
    outcomes.forEach((k, v) -> byCode.put(k, v.sum()));
    w.detail.put("callsEndedBy", byCode);
  }

  /**
   * On every channel, a download far larger than any flow-control window whose client asks for
   * one message and then reads nothing until the window ends, when it cancels. The server's
   * statistics call then says how much it committed to the stalled stream: bounded by flow
   * control, not the download's size.
   */
  private void stalledReader(FaultLog.Window w, long end) {
    List<ClientCall<byte[], byte[]>> calls = new ArrayList<>();
    Map<String, AtomicLong> received = new ConcurrentHashMap<>();
    Map<String, Long> ids = new ConcurrentHashMap<>();
    for (TransportLoad l : loads) {
      long id = seed * 1_000_003L + w.index * 16L + calls.size() + 1;
      ids.put(l.transport, id);
      AtomicLong got = new AtomicLong();
      received.put(l.transport, got);
      ClientCall<byte[], byte[]> call = l.channel.newCall(BenchService.DOWNLOAD, CallOptions.DEFAULT);
      call.start(new ClientCall.Listener<>() {
        @Override
        public void onMessage(byte[] message) {
          got.incrementAndGet();
        }
      }, new Metadata());
      call.request(1);
      call.sendMessage(BenchMessages.downloadRequest(STALLED_BYTES, TransportLoad.DOWNLOAD_CHUNK, id));
      call.halfClose();
      calls.add(call);
    }
    sleepUntil(end);
    for (ClientCall<byte[], byte[]> c : calls) {
      c.cancel("the stalled reader's window ended", null);
    }
    sleepMillis(200);
    Map<String, Object> perTransport = new java.util.LinkedHashMap<>();
    for (TransportLoad l : loads) {
      long committed = -1;
      try {
        byte[] r = ClientCalls.blockingUnaryCall(l.channel, BenchService.STATS,
            CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.SECONDS),
            BenchMessages.longMessage(ids.get(l.transport)));
        committed = java.nio.ByteBuffer.wrap(r).getLong();
      } catch (RuntimeException e) {
        // left at -1: the statistics call failed (the fault window's detail says so)
      }
      Map<String, Object> m = new java.util.LinkedHashMap<>();
      m.put("messagesRead", received.get(l.transport).get());
      m.put("serverCommittedKiB", committed < 0 ? -1 : committed / 1024);
      perTransport.put(l.transport, m);
    }
    w.detail.put("stalled", perTransport);
  }

  private static void sleepMillis(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
