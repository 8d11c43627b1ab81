package dev.tern.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.spi.SessionStore;
import dev.tern.rpc.spi.SessionStores;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A {@link TransportMemory} kept in a session store: what survives a restart, and what does not. */
class TransportMemoryStoreTest {
  @TempDir Path dir;
  private Path file;
  /** Wall clock shared by every "run"; each run has its own ticker, as after a restart. */
  private final AtomicLong wall = new AtomicLong(System.currentTimeMillis());
  private final List<LogRecord> warnings = new ArrayList<>();
  private final Handler capture = new Handler() {
    @Override
    public void publish(LogRecord r) {
      if (r.getLevel().intValue() >= Level.WARNING.intValue()) {
        synchronized (warnings) {
          warnings.add(r);
        }
      }
    }

    @Override public void flush() {}

    @Override public void close() {}
  };
  private final Logger[] watched = {Logger.getLogger(TransportMemory.class.getName()),
      Logger.getLogger("dev.tern.rpc.spi.FileSessionStore")};

  @BeforeEach
  void setUp() {
    file = dir.resolve("transports.bin");
    for (Logger l : watched) {
      l.addHandler(capture);
    }
  }

  @AfterEach
  void tearDown() {
    for (Logger l : watched) {
      l.removeHandler(capture);
    }
  }

  /** A run of the application: a memory on the file, with a ticker of its own starting at {@code tick}. */
  private TransportMemory run(AtomicLong tick) {
    return TransportMemory.builder().ticker(tick::get).wallClock(wall::get)
        .sessionStore(SessionStores.file(file, 16)).build();
  }

  private void advance(AtomicLong tick, long minutes) {
    tick.addAndGet(TimeUnit.MINUTES.toNanos(minutes));
    wall.addAndGet(TimeUnit.MINUTES.toMillis(minutes));
  }

  @Test
  void aBrokenMarkAndTheLastWinnerSurviveARestartForWhatIsLeftOfTheMark() {
    AtomicLong first = new AtomicLong(1_000);
    TransportMemory before = run(first);
    before.markBroken("a:1", "udp");
    before.markWon("a:1", "tcp", TimeUnit.MILLISECONDS.toNanos(40), List.of("quic"));
    advance(first, 2);

    AtomicLong second = new AtomicLong(-987_654_321_000L);
    TransportMemory after = run(second);
    assertThat(after.isBroken("a:1", "udp")).isTrue();
    assertThat(after.brokenForNanos("a:1", "udp")).isEqualTo(TimeUnit.MINUTES.toNanos(3));
    assertThat(after.lastWorked("a:1")).isEqualTo("tcp");
    assertThat(after.lastConnectNanos("a:1")).isEqualTo(TimeUnit.MILLISECONDS.toNanos(40));
    assertThat(after.mayGoAhead("a:1", "tcp", "quic")).as("what tcp beat is kept").isTrue();
    assertThat(after.mayGoAhead("a:1", "tcp", "udp")).as("udp is marked").isFalse();

    advance(second, 3);
    assertThat(after.mayGoAhead("a:1", "tcp", "quic")).as("five minutes after tcp beat quic").isFalse();
    assertThat(after.isBroken("a:1", "udp")).as("the mark ran out on the second run's clock").isFalse();
    after.markBroken("a:1", "udp");
    assertThat(after.brokenForNanos("a:1", "udp")).as("the second mark in a row lasts twice as long")
        .isEqualTo(TimeUnit.MINUTES.toNanos(10));
    assertThat(warnings).isEmpty();
  }

  @Test
  void aMarkThatRanOutWhileTheApplicationWasStoppedIsOverButStillCounts() {
    AtomicLong first = new AtomicLong();
    run(first).markBroken("a:1", "udp");
    wall.addAndGet(TimeUnit.HOURS.toMillis(1));
    TransportMemory after = run(new AtomicLong(42));
    assertThat(after.isBroken("a:1", "udp")).isFalse();
    after.markBroken("a:1", "udp");
    assertThat(after.brokenForNanos("a:1", "udp")).isEqualTo(TimeUnit.MINUTES.toNanos(10));
  }

  @Test
  void aMarkNeverOutlastsTheCapWhateverTheFileSays() {
    run(new AtomicLong()).markBroken("a:1", "udp");
    wall.addAndGet(-TimeUnit.DAYS.toMillis(30)); // the clock was set back a month
    TransportMemory after = TransportMemory.builder().ticker(new AtomicLong()::get).wallClock(wall::get)
        .maxBrokenDuration(1, TimeUnit.HOURS).sessionStore(SessionStores.file(file, 16)).build();
    assertThat(after.brokenForNanos("a:1", "udp")).isEqualTo(TimeUnit.HOURS.toNanos(1));
  }

  @Test
  void aNetworkChangeClearsTheStoreToo() {
    TransportMemory before = run(new AtomicLong());
    before.markBroken("a:1", "udp");
    before.markWorked("b:1", "quic");
    before.networkChanged();
    assertThat(SessionStores.file(file, 16).get(TransportMemory.STORE_SERVER, TransportMemory.STORE_KIND,
        wall.get())).as("the entry is gone from the file").isNull();
    TransportMemory after = run(new AtomicLong());
    assertThat(after.isBroken("a:1", "udp")).isFalse();
    assertThat(after.lastWorked("b:1")).isNull();
  }

  @Test
  void aCorruptFileIsIgnoredWithAWarningAndThenReplaced() throws Exception {
    Files.write(file, "not a session store at all".getBytes(StandardCharsets.US_ASCII));
    TransportMemory m = run(new AtomicLong());
    assertThat(m.lastWorked("a:1")).isNull();
    assertThat(warnings).hasSize(1);
    m.markBroken("a:1", "udp");
    assertThat(run(new AtomicLong()).isBroken("a:1", "udp")).as("written anew").isTrue();
  }

  @Test
  void aTruncatedFileIsIgnoredWithAWarning() throws Exception {
    run(new AtomicLong()).markBroken("a:1", "udp");
    byte[] whole = Files.readAllBytes(file);
    Files.write(file, java.util.Arrays.copyOf(whole, whole.length - 7));
    TransportMemory m = run(new AtomicLong());
    assertThat(m.isBroken("a:1", "udp")).isFalse();
    assertThat(warnings).hasSize(1);
  }

  @Test
  void anUnreadableEntryInAValidStoreIsIgnoredWithAWarning() {
    SessionStore store = SessionStores.inMemory(16);
    long later = wall.get() + TimeUnit.DAYS.toMillis(1);
    for (byte[] garbage : new byte[][] {{1, 0, 0, 0, 1, 0}, {1, 0x7f, 0, 0, 0}, {9}, {}}) {
      store.put(TransportMemory.STORE_SERVER, TransportMemory.STORE_KIND, garbage, later);
      TransportMemory m = TransportMemory.builder().wallClock(wall::get).sessionStore(store).build();
      assertThat(m.lastWorked("a:1")).isNull();
    }
    assertThat(warnings).hasSize(4);
    assertThat(warnings.get(0).getMessage()).contains("ignored");
  }

  @Test
  void aStoreThatThrowsIsAWarningNotACrash() {
    SessionStore broken = new SessionStore() {
      @Override public void add(String s, String k, byte[] v, long e) { throw new IllegalStateException("disk"); }

      @Override public byte[] take(String s, String k, long n) { throw new IllegalStateException("disk"); }

      @Override public void put(String s, String k, byte[] v, long e) { throw new IllegalStateException("disk"); }

      @Override public byte[] get(String s, String k, long n) { throw new IllegalStateException("disk"); }

      @Override public void remove(String s, String k) { throw new IllegalStateException("disk"); }
    };
    TransportMemory m = TransportMemory.builder().sessionStore(broken).build();
    m.markBroken("a:1", "udp");
    assertThat(m.isBroken("a:1", "udp")).isTrue();
    assertThat(warnings).hasSize(2);
  }

  @Test
  void theStoreHoldsAtMostTheAuthoritiesTheMemoryHolds() {
    SessionStore store = SessionStores.inMemory(16);
    TransportMemory m = TransportMemory.builder().wallClock(wall::get).sessionStore(store).build();
    for (int i = 0; i <= TransportMemory.MAX_AUTHORITIES; i++) {
      m.markBroken("host" + i + ":1", "udp");
    }
    byte[] kept = store.get(TransportMemory.STORE_SERVER, TransportMemory.STORE_KIND, wall.get());
    assertThat(kept.length).isLessThanOrEqualTo(TransportMemory.MAX_STORED_BYTES);
    TransportMemory after = TransportMemory.builder().wallClock(wall::get).sessionStore(store).build();
    assertThat(after.isBroken("host0:1", "udp")).as("the least recently used was forgotten").isFalse();
    assertThat(after.isBroken("host1:1", "udp")).isTrue();
    assertThat(after.isBroken("host" + TransportMemory.MAX_AUTHORITIES + ":1", "udp")).isTrue();
    after.markBroken("host" + (TransportMemory.MAX_AUTHORITIES + 1) + ":1", "udp");
    assertThat(after.isBroken("host2:1", "udp")).as("the order of use survived the restart").isFalse();
    assertThat(after.isBroken("host1:1", "udp")).as("used since the restart").isTrue();
    assertThat(warnings).isEmpty();
  }

  @Test
  void aConnectLikeTheLastOneDoesNotRewriteTheStore() {
    AtomicInteger writes = new AtomicInteger();
    SessionStore inner = SessionStores.inMemory(16);
    SessionStore counting = new SessionStore() {
      @Override public void add(String s, String k, byte[] v, long e) { writes.incrementAndGet(); inner.add(s, k, v, e); }

      @Override public byte[] take(String s, String k, long n) { return inner.take(s, k, n); }

      @Override public void put(String s, String k, byte[] v, long e) { writes.incrementAndGet(); inner.put(s, k, v, e); }

      @Override public byte[] get(String s, String k, long n) { return inner.get(s, k, n); }

      @Override public void remove(String s, String k) { writes.incrementAndGet(); inner.remove(s, k); }
    };
    TransportMemory m = TransportMemory.builder().sessionStore(counting).build();
    m.markWon("a:1", "udp", TimeUnit.MILLISECONDS.toNanos(100), List.of());
    m.markWon("a:1", "udp", TimeUnit.MILLISECONDS.toNanos(150), List.of());
    m.markWon("a:1", "udp", TimeUnit.MILLISECONDS.toNanos(80), List.of());
    assertThat(writes.get()).isEqualTo(1);
    m.markWon("a:1", "udp", TimeUnit.MILLISECONDS.toNanos(400), List.of());
    m.markWon("a:1", "tcp", TimeUnit.MILLISECONDS.toNanos(400), List.of());
    m.markBroken("a:1", "udp");
    assertThat(writes.get()).isEqualTo(4);
  }
}
