package dev.tern.rpc.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class SerializingExecutorTest {
  @Test
  void tasksRunOneAtATimeInSubmissionOrder() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      SerializingExecutor serial = new SerializingExecutor(pool);
      List<Integer> order = new ArrayList<>();
      AtomicBoolean running = new AtomicBoolean();
      AtomicInteger overlaps = new AtomicInteger();
      CountDownLatch done = new CountDownLatch(1000);
      for (int i = 0; i < 1000; i++) {
        int n = i;
        serial.execute(() -> {
          if (!running.compareAndSet(false, true)) {
            overlaps.incrementAndGet();
          }
          order.add(n);
          running.set(false);
          done.countDown();
        });
      }
      assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(overlaps).hasValue(0);
      for (int i = 0; i < 1000; i++) {
        assertThat(order.get(i)).isEqualTo(i);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aThrowingTaskDoesNotStopTheNextOnes() throws Exception {
    SerializingExecutor serial = new SerializingExecutor(Runnable::run);
    CountDownLatch after = new CountDownLatch(1);
    serial.execute(() -> {
      throw new IllegalStateException("boom (expected by the test)");
    });
    serial.execute(after::countDown);
    assertThat(after.await(1, TimeUnit.SECONDS)).isTrue();
  }
}
