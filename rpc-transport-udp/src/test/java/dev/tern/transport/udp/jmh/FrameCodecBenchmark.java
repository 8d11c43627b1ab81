package dev.tern.transport.udp.jmh;

import dev.tern.transport.udp.frame.AckFrame;
import dev.tern.transport.udp.frame.FrameReader;
import dev.tern.transport.udp.frame.FrameType;
import dev.tern.transport.udp.frame.StreamFrame;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/** Frame codecs: a full-size STREAM frame and an ACK with 16 ranges, each way. */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class FrameCodecBenchmark {
  private final ByteBuffer buf = ByteBuffer.allocate(2048);
  private final byte[] data = new byte[1300];
  private final StreamFrame stream = new StreamFrame();
  private final AckFrame ack = new AckFrame();
  private final long[] hi = new long[16];
  private final long[] lo = new long[16];
  private ByteBuffer encodedStream;
  private ByteBuffer encodedAck;

  /** Prepares the inputs. */
  @Setup
  public void setUp() {
    long pn = 1_000_000;
    for (int i = 0; i < 16; i++) {
      hi[i] = pn;
      lo[i] = pn - 20;
      pn -= 25;
    }
    encodedStream = ByteBuffer.allocate(2048);
    StreamFrame.encodeHeader(encodedStream, 8, 123_456, data.length, false);
    encodedStream.put(data).flip();
    encodedAck = ByteBuffer.allocate(512);
    AckFrame.encode(encodedAck, hi, lo, 16, 1_000_000, null, null, 0, 512);
    encodedAck.flip();
  }

  /** Encodes a STREAM frame with 1300 bytes of data. */
  @Benchmark
  public int encodeStream() {
    buf.clear();
    StreamFrame.encodeHeader(buf, 8, 123_456, data.length, false);
    buf.put(data);
    return buf.position();
  }

  /** Decodes a STREAM frame (a view: no copy). */
  @Benchmark
  public int decodeStream() {
    encodedStream.position(1);
    stream.decode(encodedStream, encodedStream.get(0));
    return stream.length;
  }

  /** Encodes an ACK with 16 ranges. */
  @Benchmark
  public int encodeAck() {
    buf.clear();
    return AckFrame.encode(buf, hi, lo, 16, 1_000_000, null, null, 0, 512);
  }

  /** Decodes an ACK with 16 ranges. */
  @Benchmark
  public int decodeAck() {
    encodedAck.position(1);
    ack.decode(encodedAck, FrameType.ACK);
    return ack.rangeCount;
  }

  /** Keeps the reader class loaded in the benchmark (sanity). */
  static FrameReader reader() {
    return new FrameReader();
  }
}
