package dev.tern.bench.soak;

import dev.tern.bench.service.BenchMessages;
import dev.tern.bench.service.BenchService;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.nio.ByteBuffer;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * The steady load on one transport's channel, open loop: unary calls at a fixed rate, a download
 * every {@link #DOWNLOAD_PERIOD_MILLIS}, one bidirectional chat kept open and replaced every
 * {@link #CHAT_SECONDS}. A call that would exceed its kind's bound on calls in flight is not made
 * and is counted as skipped, so a stalled transport cannot pile up calls without end. Every failed
 * call goes to the {@link FaultLog}, which puts it in a fault window or outside them all.
 */
final class TransportLoad {
  /** Bytes of each unary request and response. */
  static final int UNARY_BYTES = 1024;
  /** Bytes of each download. */
  static final long DOWNLOAD_BYTES = 1 << 20;
  /** Bytes of each download message. */
  static final int DOWNLOAD_CHUNK = 32 * 1024;
  /** Time between two downloads. */
  static final long DOWNLOAD_PERIOD_MILLIS = 2_000;
  /** Time between two chat messages. */
  static final long CHAT_MESSAGE_MILLIS = 250;
  /** How long a chat stays open before it is half-closed and a new one opened. */
  static final long CHAT_SECONDS = 30;
  /** Unary calls in flight at most. */
  static final int MAX_UNARY_IN_FLIGHT = 64;
  /** Downloads in flight at most. */
  static final int MAX_DOWNLOADS_IN_FLIGHT = 2;
  /** A unary call's deadline: far above its latency, so it fails only when something is wrong. */
  static final long UNARY_DEADLINE_MILLIS = 10_000;
  /** A download's deadline. */
  static final long DOWNLOAD_DEADLINE_MILLIS = 30_000;
  /** How long a half-closed chat may take to end before it is cancelled and counted failed. */
  static final long CHAT_END_MILLIS = 15_000;

  final String transport;
  final ManagedChannel channel;
  private final FaultLog log;
  private final Recorder unaryMicros = new Recorder(3_600_000_000L, 3);
  private final Semaphore unarySlots = new Semaphore(MAX_UNARY_IN_FLIGHT);
  private final Semaphore downloadSlots = new Semaphore(MAX_DOWNLOADS_IN_FLIGHT);
  final AtomicLong unaryOk = new AtomicLong();
  final AtomicLong downloadsOk = new AtomicLong();
  final AtomicLong chatsOk = new AtomicLong();
  final AtomicLong chatMessages = new AtomicLong();
  final AtomicLong failed = new AtomicLong();
  final AtomicLong skipped = new AtomicLong();
  private volatile boolean stopping;
  private Chat chat;

  /** The load of {@code transport} on {@code channel}, its failures recorded in {@code log}. */
  TransportLoad(String transport, ManagedChannel channel, FaultLog log) {
    this.transport = transport;
    this.channel = channel;
    this.log = log;
  }

  /** The unary latencies (microseconds) recorded since the last call of this method. */
  Histogram takeUnaryLatencies() {
    return unaryMicros.getIntervalHistogram();
  }

  /** Starts one unary call unless {@link #MAX_UNARY_IN_FLIGHT} are in flight. */
  void unary() {
    if (stopping) {
      return;
    }
    if (!unarySlots.tryAcquire()) {
      skipped.incrementAndGet();
      return;
    }
    long startNs = System.nanoTime();
    long start = log.now();
    try {
      ClientCall<byte[], byte[]> call = channel.newCall(BenchService.UNARY,
          CallOptions.DEFAULT.withDeadlineAfter(UNARY_DEADLINE_MILLIS, TimeUnit.MILLISECONDS));
      ClientCalls.asyncUnaryCall(call, BenchMessages.unaryRequest(UNARY_BYTES, UNARY_BYTES, startNs),
          new StreamObserver<>() {
            private int size = -1;

            @Override
            public void onNext(byte[] value) {
              size = value.length;
            }

            @Override
            public void onError(Throwable t) {
              unarySlots.release();
              fail("unary", start, Status.fromThrowable(t), false);
            }

            @Override
            public void onCompleted() {
              long micros = (System.nanoTime() - startNs) / 1000;
              unarySlots.release();
              if (size != UNARY_BYTES) {
                fail("unary", start, Status.DATA_LOSS.withDescription("response of " + size + " bytes"), false);
                return;
              }
              unaryMicros.recordValue(Math.min(micros, 3_600_000_000L));
              unaryOk.incrementAndGet();
            }
          });
    } catch (RuntimeException e) {
      unarySlots.release();
      fail("unary", start, Status.fromThrowable(e), false);
    }
  }

  /** Starts one download unless {@link #MAX_DOWNLOADS_IN_FLIGHT} are in flight. */
  void download() {
    if (stopping) {
      return;
    }
    if (!downloadSlots.tryAcquire()) {
      skipped.incrementAndGet();
      return;
    }
    long start = log.now();
    try {
      ClientCall<byte[], byte[]> call = channel.newCall(BenchService.DOWNLOAD,
          CallOptions.DEFAULT.withDeadlineAfter(DOWNLOAD_DEADLINE_MILLIS, TimeUnit.MILLISECONDS));
      ClientCalls.asyncServerStreamingCall(call, BenchMessages.downloadRequest(DOWNLOAD_BYTES, DOWNLOAD_CHUNK, 0),
          new StreamObserver<>() {
            private long bytes;

            @Override
            public void onNext(byte[] value) {
              bytes += value.length;
            }

            @Override
            public void onError(Throwable t) {
              downloadSlots.release();
              fail("download", start, Status.fromThrowable(t), false);
            }

            @Override
            public void onCompleted() {
              downloadSlots.release();
              if (bytes != DOWNLOAD_BYTES) {
                fail("download", start, Status.DATA_LOSS.withDescription("downloaded " + bytes + " bytes"), false);
                return;
              }
              downloadsOk.incrementAndGet();
            }
          });
    } catch (RuntimeException e) {
      downloadSlots.release();
      fail("download", start, Status.fromThrowable(e), false);
    }
  }

  /**
   * The chat's tick: opens a chat if none is open, replaces it once it is {@link #CHAT_SECONDS}
   * old, else sends it one message. Called from one thread at a time.
   */
  synchronized void chatTick() {
    if (stopping) {
      return;
    }
    if (chat == null || chat.ended) {
      chat = new Chat();
    } else if (log.now() - chat.start >= TimeUnit.SECONDS.toNanos(CHAT_SECONDS)) {
      chat.halfClose();
      chat = new Chat();
    } else {
      chat.send();
    }
  }

  /** Checks the half-closed chat ended in time; cancels it (a failure) if not. */
  private void watch(Chat c) {
    if (!c.ended) {
      long got = c.received.get();
      long want;
      synchronized (c) {
        want = c.sent;
      }
      long last = c.lastEchoNanos;
      // What came back tells a stream that stopped flowing from one whose end alone was lost.
      c.out.cancel("chat did not end " + CHAT_END_MILLIS + " ms after its half-close (" + got + " echoes of " + want
          + " messages; " + (last == 0 ? "no echo" : "the last echo " + TimeUnit.NANOSECONDS.toMillis(
              c.halfClosedNanos - last) + " ms before the half-close") + ")", null);
    }
  }

  /** Makes no more calls and half-closes the open chat. */
  synchronized void stop() {
    stopping = true;
    if (chat != null && !chat.ended) {
      chat.halfClose();
    }
  }

  /** Whether every call this load made has ended. */
  synchronized boolean idle() {
    return unarySlots.availablePermits() == MAX_UNARY_IN_FLIGHT
        && downloadSlots.availablePermits() == MAX_DOWNLOADS_IN_FLIGHT && (chat == null || chat.ended);
  }

  private void fail(String kind, long start, Status status, boolean longLived) {
    failed.incrementAndGet();
    log.failed(transport, kind, start, status.getCode().name(), status.getDescription(), longLived);
  }

  /** One open chat: counts what it sent and what came back; both must match when it ends. */
  private final class Chat {
    final long start = log.now();
    final ClientCallStreamObserver<byte[]> out;
    volatile boolean ended;
    private long sent;
    private final AtomicLong received = new AtomicLong();
    private volatile long lastEchoNanos;
    private volatile long halfClosedNanos;
    private boolean halfClosed;

    Chat() {
      ClientCall<byte[], byte[]> call = channel.newCall(SoakChat.CHAT, CallOptions.DEFAULT);
      out = (ClientCallStreamObserver<byte[]>) ClientCalls.asyncBidiStreamingCall(call, new StreamObserver<>() {
        @Override
        public void onNext(byte[] value) {
          lastEchoNanos = System.nanoTime();
          received.incrementAndGet();
          chatMessages.incrementAndGet();
        }

        @Override
        public void onError(Throwable t) {
          ended = true;
          fail("chat", start, Status.fromThrowable(t), true);
        }

        @Override
        public void onCompleted() {
          ended = true;
          long got = received.get();
          long want;
          synchronized (Chat.this) {
            want = sent;
          }
          if (got != want) {
            fail("chat", start, Status.DATA_LOSS.withDescription(got + " echoes of " + want + " messages"), true);
          } else {
            chatsOk.incrementAndGet();
          }
        }
      });
      send();
    }

    synchronized void send() {
      out.onNext(ByteBuffer.allocate(64).putLong(sent).putLong(System.nanoTime()).array());
      sent++;
    }

    synchronized void halfClose() {
      if (!halfClosed) {
        halfClosed = true;
        halfClosedNanos = System.nanoTime();
        out.onCompleted();
        SoakMain.TIMER.schedule(() -> watch(this), CHAT_END_MILLIS, TimeUnit.MILLISECONDS);
      }
    }
  }
}
