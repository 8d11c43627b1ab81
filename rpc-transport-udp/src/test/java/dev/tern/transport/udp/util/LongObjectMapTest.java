package dev.tern.transport.udp.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class LongObjectMapTest {

  @Test
  void agreesWithHashMapOverRandomPutsAndRemovesThatForceCollisionsAndGrowth() {
    SplittableRandom random = new SplittableRandom(7);
    LongObjectMap<String> map = new LongObjectMap<>();
    Map<Long, String> reference = new HashMap<>();
    for (int op = 0; op < 200_000; op++) {
      // A small key space keeps clusters long, so backward-shift deletion is exercised.
      long key = random.nextInt(3000) * 4L;
      if (random.nextInt(3) == 0) {
        map.remove(key);
        reference.remove(key);
      } else {
        String value = "v" + op;
        map.put(key, value);
        reference.put(key, value);
      }
      if (op % 997 == 0) {
        for (long k = 0; k < 3000 * 4L; k += 4) {
          assertThat(map.get(k)).as("key %d after op %d", k, op).isEqualTo(reference.get(k));
        }
      }
    }
    assertThat(map.size()).isEqualTo(reference.size());
    int seen = 0;
    for (int i = 0; i < map.capacity(); i++) {
      if (map.slot(i) != null) {
        seen++;
      }
    }
    assertThat(seen).isEqualTo(reference.size());
  }

  @Test
  void nullValuesAreRefusedWithTheKeyNamed() {
    assertThatThrownBy(() -> new LongObjectMap<String>().put(42, null))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("42");
  }
}
