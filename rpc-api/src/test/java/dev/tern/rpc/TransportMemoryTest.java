package dev.tern.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class TransportMemoryTest {
  private final AtomicLong clock = new AtomicLong(1_000);
  private final TransportMemory memory = TransportMemory.builder().ticker(clock::get)
      .maxBrokenDuration(30, TimeUnit.MINUTES).build();

  @Test
  void marksLastFiveMinutesThenDoubleUpToTheCap() {
    long[] expectedMinutes = {5, 10, 20, 30, 30};
    for (long minutes : expectedMinutes) {
      memory.markBroken("a:1", "udp");
      assertThat(memory.brokenForNanos("a:1", "udp")).isEqualTo(TimeUnit.MINUTES.toNanos(minutes));
      clock.addAndGet(TimeUnit.MINUTES.toNanos(minutes) - 1);
      assertThat(memory.isBroken("a:1", "udp")).isTrue();
      clock.addAndGet(1);
      assertThat(memory.isBroken("a:1", "udp")).isFalse();
    }
  }

  @Test
  void aSuccessClearsTheMarksAndIsRemembered() {
    memory.markBroken("a:1", "udp");
    memory.markBroken("a:1", "udp");
    memory.markWorked("a:1", "udp");
    assertThat(memory.isBroken("a:1", "udp")).isFalse();
    assertThat(memory.lastWorked("a:1")).isEqualTo("udp");
    memory.markBroken("a:1", "udp");
    assertThat(memory.brokenForNanos("a:1", "udp")).isEqualTo(TimeUnit.MINUTES.toNanos(5));
    assertThat(memory.lastWorked("a:1")).as("a transport marked broken is no longer the one that worked").isNull();
  }

  @Test
  void aNetworkChangeForgetsEverything() {
    memory.markBroken("a:1", "udp");
    memory.markWorked("a:1", "tcp");
    memory.markBroken("b:1", "quic");
    memory.networkChanged();
    assertThat(memory.isBroken("a:1", "udp")).isFalse();
    assertThat(memory.isBroken("b:1", "quic")).isFalse();
    assertThat(memory.lastWorked("a:1")).isNull();
  }

  @Test
  void memoryIsBoundedByAuthority() {
    for (int i = 0; i <= TransportMemory.MAX_AUTHORITIES; i++) {
      memory.markBroken("host" + i + ":1", "udp");
    }
    assertThat(memory.isBroken("host0:1", "udp")).as("the least recently used authority is forgotten").isFalse();
    assertThat(memory.isBroken("host" + TransportMemory.MAX_AUTHORITIES + ":1", "udp")).isTrue();
  }

  @Test
  void badDurationsAreRejectedNamingTheValue() {
    assertThatThrownBy(() -> TransportMemory.builder().initialBrokenDuration(0, TimeUnit.MINUTES))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was 0");
    assertThatThrownBy(() -> TernChannelBuilder.forAddress("localhost", 1).transportRaceHeadStart(-1, TimeUnit.SECONDS))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was -1");
  }
}
