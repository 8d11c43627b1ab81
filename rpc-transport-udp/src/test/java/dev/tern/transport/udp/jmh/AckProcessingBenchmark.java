package dev.tern.transport.udp.jmh;

import dev.tern.transport.udp.congestion.NewReno;
import dev.tern.transport.udp.frame.AckFrame;
import dev.tern.transport.udp.recovery.AckTracker;
import dev.tern.transport.udp.recovery.LossDetector;
import dev.tern.transport.udp.recovery.RttEstimator;
import dev.tern.transport.udp.recovery.SentFrameSink;
import dev.tern.transport.udp.recovery.SentFrameType;
import dev.tern.transport.udp.recovery.SentPacketLog;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * ACK processing on both sides: the receiver records a packet and writes an ACK; the sender
 * records 2 packets and processes the ACK that covers them (the every-second-packet rhythm).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class AckProcessingBenchmark {
  private SentPacketLog log;
  private LossDetector detector;
  private AckTracker tracker;
  private final AckFrame ack = new AckFrame();
  private final ByteBuffer buf = ByteBuffer.allocate(1024);
  private long now;
  private long received;

  /** Fresh state. */
  @Setup
  public void setUp() {
    log = new SentPacketLog();
    SentFrameSink sink = new SentFrameSink() {
      @Override
      public void onFrameAcked(byte type, long a, long b, int length) {}

      @Override
      public void onFrameLost(byte type, long a, long b, int length) {}
    };
    detector = new LossDetector(log, new RttEstimator(), new NewReno(1350), sink);
    tracker = new AckTracker(25_000_000L);
  }

  /** Two packets sent, received, acknowledged and the ACK processed. */
  @Benchmark
  public long sendTwoAndProcessTheirAck() {
    for (int i = 0; i < 2; i++) {
      long pn = log.beginPacket();
      log.addFrame(SentFrameType.STREAM, 4, pn * 1300, 1300);
      detector.onPacketSent(now, 1350, true, true);
      tracker.onPacketReceived(received++, true, now);
      now += 100_000;
    }
    buf.clear();
    tracker.writeAck(buf, now, 1024, false);
    buf.flip();
    ack.decode(buf, buf.get());
    detector.onAck(ack, now);
    return detector.bytesInFlight();
  }
}
