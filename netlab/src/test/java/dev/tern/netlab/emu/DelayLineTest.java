package dev.tern.netlab.emu;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class DelayLineTest {
  @Test
  @Timeout(value = 10, unit = TimeUnit.SECONDS)
  void releasesPacketsByDeliveryTimeThenArrivalOrderAndNotBefore() throws Exception {
    DelayLine line = new DelayLine(16);
    long base = System.nanoTime() + 50_000_000L;
    long[] at = {30, 10, 10, 20};
    for (int i = 0; i < at.length; i++) {
      DelayLine.Slot s = line.acquire();
      s.len = i; // tag
      line.schedule(s, base + at[i] * 1_000_000L);
    }
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < at.length; i++) {
      DelayLine.Slot s = line.takeDue();
      assertThat(System.nanoTime()).isGreaterThanOrEqualTo(s.atNs);
      order.add(s.len);
      line.release(s);
    }
    assertThat(order).containsExactly(1, 2, 3, 0);
    line.close();
    assertThat(line.takeDue()).isNull();
  }

  @Test
  void refusesSlotsBeyondItsLimit() {
    DelayLine line = new DelayLine(2);
    DelayLine.Slot a = line.acquire();
    assertThat(line.acquire()).isNotNull();
    assertThat(line.acquire()).isNull();
    line.release(a);
    assertThat(line.acquire()).isSameAs(a);
  }
}
