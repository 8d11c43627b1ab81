package dev.tern.rpc.spi;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.DecompressorRegistry;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A message's buffer grows with the bytes that arrived, not with what its length prefix claims: a
 * peer that announces a message near the limit and sends ten bytes of it costs ten bytes (and a
 * small first buffer), not the whole declared length.
 */
class GrpcMessageDeframerMemoryTest {
  private static final int LIMIT = 8 * 1024 * 1024;
  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  private static ByteBuffer prefix(int length) {
    ByteBuffer b = ByteBuffer.allocate(GrpcMessageFraming.HEADER_LENGTH);
    b.put((byte) 0).putInt(length).flip();
    return b;
  }

  @Test
  void aPrefixClaimingMegabytesAllocatesOnlyWhatArrived() {
    List<ByteBuffer> out = new ArrayList<>();
    GrpcMessageDeframer warm = new GrpcMessageDeframer(LIMIT, "identity", DecompressorRegistry.getDefaultInstance(), out::add);
    warm.request(1);
    warm.deframe(prefix(4 * 1024 * 1024));
    warm.deframe(ByteBuffer.allocate(10));

    GrpcMessageDeframer deframer = new GrpcMessageDeframer(LIMIT, "identity", DecompressorRegistry.getDefaultInstance(), out::add);
    deframer.request(1);
    ByteBuffer head = prefix(4 * 1024 * 1024);
    ByteBuffer tenBytes = ByteBuffer.allocate(10);
    long before = THREADS.getThreadAllocatedBytes(Thread.currentThread().getId());
    deframer.deframe(head);
    deframer.deframe(tenBytes);
    long allocated = THREADS.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;
    assertThat(allocated).as("bytes allocated for a 4 MiB claim with 10 bytes sent").isLessThan(64 * 1024);
    assertThat(deframer.hasPartialMessage()).isTrue();
    assertThat(out).isEmpty();
  }

  @Test
  void aMessageArrivingInPiecesIsWholeAndExact() {
    int length = 300_000; // grows past the first buffer several times, not a power of two
    byte[] body = new byte[length];
    for (int i = 0; i < length; i++) {
      body[i] = (byte) (i * 31);
    }
    List<ByteBuffer> out = new ArrayList<>();
    GrpcMessageDeframer deframer = new GrpcMessageDeframer(LIMIT, "identity", DecompressorRegistry.getDefaultInstance(), out::add);
    deframer.request(2);
    deframer.deframe(prefix(length));
    for (int at = 0; at < length; at += 7_001) {
      deframer.deframe(ByteBuffer.wrap(body, at, Math.min(7_001, length - at)).slice());
    }
    deframer.deframe(prefix(0));
    assertThat(out).hasSize(2);
    ByteBuffer first = out.get(0);
    assertThat(first.remaining()).isEqualTo(length);
    byte[] got = new byte[length];
    first.get(got);
    assertThat(got).isEqualTo(body);
    assertThat(out.get(1).remaining()).isZero();
    assertThat(deframer.bufferedBytes()).isZero();
    assertThat(deframer.hasPartialMessage()).isFalse();
  }
}
