package dev.tern.rpc.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SessionStoresTest {
  private static final long NOW = 1_000_000L;

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void takeReturnsTheNewestLiveEntryOnce() {
    SessionStore s = SessionStores.inMemory(16);
    s.add("a:1", "udp.ticket", b("old"), NOW + 10);
    s.add("a:1", "udp.ticket", b("new"), NOW + 10);
    assertThat(s.take("a:1", "udp.ticket", NOW)).isEqualTo(b("new"));
    assertThat(s.take("a:1", "udp.ticket", NOW)).isEqualTo(b("old"));
    assertThat(s.take("a:1", "udp.ticket", NOW)).isNull();
  }

  @Test
  void expiredEntriesAreNeverReturned() {
    SessionStore s = SessionStores.inMemory(16);
    s.add("a:1", "k", b("live"), NOW + 10);
    s.add("a:1", "k", b("dead"), NOW);
    assertThat(s.get("a:1", "k", NOW)).isEqualTo(b("live"));
    assertThat(s.take("a:1", "k", NOW)).isEqualTo(b("live"));
    assertThat(s.take("a:1", "k", NOW)).isNull();
  }

  @Test
  void getLeavesTheEntryAndCopiesItsBytes() {
    SessionStore s = SessionStores.inMemory(16);
    byte[] v = b("v");
    s.put("a:1", "k", v, NOW + 10);
    v[0] = 'x';
    byte[] got = s.get("a:1", "k", NOW);
    assertThat(got).isEqualTo(b("v"));
    got[0] = 'y';
    assertThat(s.get("a:1", "k", NOW)).isEqualTo(b("v"));
  }

  @Test
  void putReplacesEveryEntryOfItsKind() {
    SessionStore s = SessionStores.inMemory(16);
    s.add("a:1", "k", b("1"), NOW + 10);
    s.add("a:1", "k", b("2"), NOW + 10);
    s.add("a:1", "other", b("o"), NOW + 10);
    s.put("a:1", "k", b("3"), NOW + 10);
    assertThat(s.take("a:1", "k", NOW)).isEqualTo(b("3"));
    assertThat(s.take("a:1", "k", NOW)).isNull();
    assertThat(s.get("a:1", "other", NOW)).isEqualTo(b("o"));
    s.remove("a:1", "other");
    assertThat(s.get("a:1", "other", NOW)).isNull();
  }

  @Test
  void serverAndKindAreNotConfusedByTheirCharacters() {
    SessionStore s = SessionStores.inMemory(16);
    s.put("a\nb", "c", b("1"), NOW + 10);
    s.put("a", "b\nc", b("2"), NOW + 10);
    assertThat(s.get("a\nb", "c", NOW)).isEqualTo(b("1"));
    assertThat(s.get("a", "b\nc", NOW)).isEqualTo(b("2"));
  }

  @Test
  void keepsAtMostEightEntriesOfAKindTheNewest() {
    SessionStore s = SessionStores.inMemory(100);
    for (int i = 0; i < 12; i++) {
      s.add("a:1", "k", new byte[] {(byte) i}, NOW + 10);
    }
    List<Integer> left = new ArrayList<>();
    byte[] v;
    while ((v = s.take("a:1", "k", NOW)) != null) {
      left.add((int) v[0]);
    }
    assertThat(left).containsExactly(11, 10, 9, 8, 7, 6, 5, 4);
  }

  @Test
  void pastTheEntryBoundDropsTheEntriesThatExpireFirst() {
    SessionStores.MemoryStore s = new SessionStores.MemoryStore(3, SessionStores.DEFAULT_MAX_BYTES);
    s.put("s1", "k", b("1"), NOW + 30);
    s.put("s2", "k", b("2"), NOW + 10);
    s.put("s3", "k", b("3"), NOW + 20);
    s.put("s4", "k", b("4"), NOW + 40);
    assertThat(s.size()).isEqualTo(3);
    assertThat(s.get("s2", "k", NOW)).isNull();
    assertThat(s.get("s1", "k", NOW)).isNotNull();
    assertThat(s.get("s3", "k", NOW)).isNotNull();
    assertThat(s.get("s4", "k", NOW)).isNotNull();
  }

  @Test
  void pastTheByteBoundDropsEntriesAndRefusesOneTooLarge() {
    long one = SessionStores.MemoryStore.sizeOf("s1", "k", 100);
    SessionStores.MemoryStore s = new SessionStores.MemoryStore(100, 2 * one);
    s.put("s1", "k", new byte[100], NOW + 30);
    s.put("s2", "k", new byte[100], NOW + 10);
    s.put("s3", "k", new byte[100], NOW + 20);
    assertThat(s.bytes()).isLessThanOrEqualTo(2 * one);
    assertThat(s.get("s2", "k", NOW)).isNull();
    s.put("big", "k", new byte[(int) (2 * one)], NOW + 50);
    assertThat(s.get("big", "k", NOW)).isNull();
    assertThat(s.size()).isEqualTo(2);
  }

  @Test
  void takingEveryEntryLeavesNoTrace() {
    SessionStores.MemoryStore s = new SessionStores.MemoryStore(4, SessionStores.DEFAULT_MAX_BYTES);
    for (int i = 0; i < 10_000; i++) {
      s.add("server" + i, "udp.ticket", b("t"), NOW + 10);
      assertThat(s.take("server" + i, "udp.ticket", NOW)).isNotNull();
    }
    assertThat(s.size()).isZero();
    assertThat(s.bytes()).isZero();
    assertThat(s.kinds()).isZero();
    List<Object> live = new ArrayList<>();
    s.forEachLive(0, (k, e) -> live.add(k));
    assertThat(live).isEmpty();
  }

  @Test
  void rejectsNonPositiveBoundsAndNullNames() {
    assertThatThrownBy(() -> SessionStores.inMemory(0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> SessionStores.inMemory(4).add(null, "k", b("v"), NOW))
        .isInstanceOf(NullPointerException.class);
    assertThat(SessionStores.process()).isSameAs(SessionStores.process());
  }

  @Test
  void concurrentAddsAndTakesHandOutEachEntryOnce() throws Exception {
    SessionStore s = SessionStores.inMemory(100_000);
    int threads = 4;
    int per = 2_000;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<List<String>>> taken = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int id = t;
      taken.add(pool.submit(() -> {
        start.await();
        List<String> mine = new ArrayList<>();
        for (int i = 0; i < per; i++) {
          s.add("srv", "k", b(id + ":" + i), NOW + 10);
          byte[] v = s.take("srv", "k", NOW);
          if (v != null) {
            mine.add(new String(v, StandardCharsets.UTF_8));
          }
        }
        return mine;
      }));
    }
    start.countDown();
    List<String> all = new ArrayList<>();
    for (Future<List<String>> f : taken) {
      all.addAll(f.get(30, TimeUnit.SECONDS));
    }
    pool.shutdown();
    byte[] v;
    while ((v = s.take("srv", "k", NOW)) != null) {
      all.add(new String(v, StandardCharsets.UTF_8));
    }
    assertThat(all).doesNotHaveDuplicates();
    // At most one entry per thread is outstanding (under the per-kind cap): every take finds one.
    assertThat(all).hasSize(threads * per);
  }
}
