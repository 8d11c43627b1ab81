package dev.tern.rpc.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileSessionStoreTest {
  private static final long NOW = 1_700_000_000_000L;

  @TempDir Path dir;
  private Path file;
  private final AtomicLong clock = new AtomicLong(NOW);
  private final List<LogRecord> logged = new ArrayList<>();
  private final Logger logger = Logger.getLogger(FileSessionStore.class.getName());
  private final Handler capture = new Handler() {
    @Override
    public void publish(LogRecord r) {
      logged.add(r);
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  };

  @BeforeEach
  void setUp() {
    file = dir.resolve("sessions.bin");
    logger.addHandler(capture);
    logger.setUseParentHandlers(false);
  }

  @AfterEach
  void tearDown() {
    logger.removeHandler(capture);
    logger.setUseParentHandlers(true);
  }

  private FileSessionStore open() {
    return new FileSessionStore(file, 64, SessionStores.DEFAULT_MAX_BYTES, clock::get);
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private List<LogRecord> warnings() {
    return logged.stream().filter(r -> r.getLevel() == Level.WARNING).toList();
  }

  @Test
  void aRestartSeesTheEntries() {
    FileSessionStore s = open();
    s.add("a:1", "udp.ticket", b("t1"), NOW + 1000);
    s.add("a:1", "udp.ticket", b("t2"), NOW + 1000);
    s.put("b:2", "udp.token", b("tok"), NOW + 1000);
    s.put("ü:3", "kind", new byte[0], NOW + 1000);

    FileSessionStore again = open();
    assertThat(again.take("a:1", "udp.ticket", NOW)).isEqualTo(b("t2"));
    assertThat(again.take("a:1", "udp.ticket", NOW)).isEqualTo(b("t1"));
    assertThat(again.get("b:2", "udp.token", NOW)).isEqualTo(b("tok"));
    assertThat(again.get("ü:3", "kind", NOW)).isEmpty();
    assertThat(warnings()).isEmpty();
  }

  @Test
  void aTakenEntryDoesNotComeBackAfterARestart() {
    FileSessionStore s = open();
    s.add("a:1", "udp.ticket", b("once"), NOW + 1000);
    assertThat(s.take("a:1", "udp.ticket", NOW)).isEqualTo(b("once"));
    // No close, no flush: the take is on disk when it returns.
    assertThat(open().take("a:1", "udp.ticket", NOW)).isNull();
  }

  @Test
  void removalsAreKept() {
    FileSessionStore s = open();
    s.put("a:1", "k", b("v"), NOW + 1000);
    s.remove("a:1", "k");
    assertThat(open().get("a:1", "k", NOW)).isNull();
  }

  @Test
  void expiredEntriesAreNotWrittenBackNorLoaded() throws IOException {
    FileSessionStore s = open();
    s.put("soon", "k", b("soon"), NOW + 10);
    s.put("late", "k", b("late"), NOW + 1000);
    long withBoth = Files.size(file);
    clock.set(NOW + 10);
    s.put("other", "k", b("x"), NOW + 1000);
    assertThat(open().size()).isEqualTo(2);
    assertThat(Files.size(file)).isLessThan(withBoth + 20);
    clock.set(NOW + 1000);
    assertThat(open().size()).isZero();
  }

  @Test
  void aMissingFileIsAnEmptyStoreWithoutWarning() {
    assertThat(open().get("a:1", "k", NOW)).isNull();
    assertThat(warnings()).isEmpty();
    assertThat(Files.exists(file)).isFalse();
  }

  @Test
  void anEmptyFileIsIgnoredWithOneWarning() throws IOException {
    Files.write(file, new byte[0]);
    assertEmptyWithOneWarning();
  }

  @Test
  void aTruncatedFileIsIgnoredWithOneWarning() throws IOException {
    FileSessionStore s = open();
    s.put("a:1", "k", b("value"), NOW + 1000);
    s.put("b:1", "k", b("value"), NOW + 1000);
    byte[] whole = Files.readAllBytes(file);
    for (int len : new int[] {1, 8, 13, whole.length / 2, whole.length - 1}) {
      Files.write(file, Arrays.copyOf(whole, len));
      logged.clear();
      assertEmptyWithOneWarning();
    }
  }

  @Test
  void everyFlippedBitIsDetected() throws IOException {
    FileSessionStore s = open();
    s.put("a:1", "k", b("value"), NOW + 1000);
    byte[] whole = Files.readAllBytes(file);
    for (int i = 0; i < whole.length; i++) {
      byte[] garbled = whole.clone();
      garbled[i] ^= 0x10;
      Files.write(file, garbled);
      logged.clear();
      assertEmptyWithOneWarning();
    }
  }

  @Test
  void aForeignFileIsIgnoredWithOneWarning() throws IOException {
    Files.writeString(file, "{\"tickets\": []}\n".repeat(10));
    assertEmptyWithOneWarning();
  }

  @Test
  void aFileOfAnotherFormatVersionIsIgnored() throws IOException {
    open().put("a:1", "k", b("v"), NOW + 1000);
    byte[] whole = Files.readAllBytes(file);
    whole[FileSessionStore.MAGIC.length] = 2;
    Files.write(file, whole);
    assertEmptyWithOneWarning();
  }

  @Test
  void aFileLargerThanTheBoundsIsNotRead() throws IOException {
    Files.write(file, new byte[(int) SessionStores.DEFAULT_MAX_BYTES * 2]);
    assertEmptyWithOneWarning();
  }

  @Test
  void aFileThatIsADirectoryIsIgnored() throws IOException {
    Files.createDirectory(file);
    FileSessionStore s = open();
    assertThat(s.size()).isZero();
    assertThat(warnings()).hasSize(1);
    // Writes fail (logged), the store still works in memory, and a take is refused, not reused.
    s.add("a:1", "k", b("v"), NOW + 1000);
    assertThat(s.get("a:1", "k", NOW)).isEqualTo(b("v"));
    assertThat(s.take("a:1", "k", NOW)).isNull();
  }

  private void assertEmptyWithOneWarning() {
    FileSessionStore s = open();
    assertThat(s.size()).isZero();
    assertThat(warnings()).hasSize(1);
    assertThat(warnings().get(0).getMessage()).contains(file.getFileName().toString());
    // And it recovers: the next change writes a valid file.
    s.put("z", "k", b("v"), NOW + 1000);
    logged.clear();
    assertThat(open().get("z", "k", NOW)).isEqualTo(b("v"));
    assertThat(warnings()).isEmpty();
  }

  @Test
  void aCrashMidWriteLeavesTheOldFileAndItsTempIsCleanedLater() throws IOException {
    FileSessionStore s = open();
    s.put("a:1", "k", b("committed"), NOW + 1000);
    // A crash after the temporary file was partly written and before the move.
    Path stray = dir.resolve(file.getFileName() + ".123456.tmp");
    Files.write(stray, Arrays.copyOf(Files.readAllBytes(file), 7));
    Path fresh = dir.resolve(file.getFileName() + ".654321.tmp");
    Files.write(fresh, new byte[3]);
    Files.setLastModifiedTime(stray, FileTime.fromMillis(System.currentTimeMillis()
        - FileSessionStore.STRAY_TEMP_AGE_MILLIS - 1000));

    FileSessionStore again = open();
    assertThat(again.get("a:1", "k", NOW)).isEqualTo(b("committed"));
    assertThat(warnings()).isEmpty();
    assertThat(Files.exists(stray)).isFalse();
    // A recent one may be another writer's in flight: left alone.
    assertThat(Files.exists(fresh)).isTrue();
  }

  @Test
  void writesLeaveNoTemporaryFiles() throws IOException {
    FileSessionStore s = open();
    for (int i = 0; i < 20; i++) {
      s.add("a:1", "k", b("v" + i), NOW + 1000);
    }
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactly("sessions.bin");
    }
  }

  @Test
  void boundedInEntriesAndBytesOnDiskToo() throws IOException {
    FileSessionStore s = new FileSessionStore(file, 10, 4096, clock::get);
    for (int i = 0; i < 100; i++) {
      s.put("server" + i, "udp.ticket", new byte[200], NOW + 1000 + i);
    }
    assertThat(s.size()).isLessThanOrEqualTo(10);
    assertThat(Files.size(file)).isLessThan(4096 + 64);
    FileSessionStore again = new FileSessionStore(file, 10, 4096, clock::get);
    assertThat(again.size()).isEqualTo(s.size());
    // The entries that expire last were kept.
    assertThat(again.get("server99", "udp.ticket", NOW)).isNotNull();
    assertThat(again.get("server0", "udp.ticket", NOW)).isNull();
    // A file written by a store with larger bounds is cut to this store's bounds on load.
    FileSessionStore small = new FileSessionStore(file, 3, 4096, clock::get);
    assertThat(small.size()).isEqualTo(3);
  }

  @Test
  void concurrentTakesHandOutEachEntryOnceAcrossARestart() throws Exception {
    FileSessionStore s = new FileSessionStore(file, 10_000, 1L << 22, clock::get);
    int entries = 400;
    for (int i = 0; i < entries; i++) {
      s.add("srv" + (i % 50), "k", b("e" + i), NOW + 1000);
    }
    int threads = 4;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<List<String>>> results = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int id = t;
      results.add(pool.submit(() -> {
        start.await();
        List<String> mine = new ArrayList<>();
        for (int round = 0; round < 30; round++) {
          byte[] v = s.take("srv" + ((round * threads + id) % 50), "k", NOW);
          if (v != null) {
            mine.add(new String(v, StandardCharsets.UTF_8));
          }
          s.add("new" + id, "k", b("n" + id + "-" + round), NOW + 1000);
        }
        return mine;
      }));
    }
    start.countDown();
    Set<String> taken = new HashSet<>();
    int count = 0;
    for (Future<List<String>> f : results) {
      List<String> mine = f.get(60, TimeUnit.SECONDS);
      count += mine.size();
      taken.addAll(mine);
    }
    pool.shutdown();
    assertThat(taken).hasSize(count);
    assertThat(count).isPositive();

    FileSessionStore again = new FileSessionStore(file, 10_000, 1L << 22, clock::get);
    assertThat(again.size()).isEqualTo(s.size());
    for (int i = 0; i < 50; i++) {
      byte[] v;
      while ((v = again.take("srv" + i, "k", NOW)) != null) {
        assertThat(taken).doesNotContain(new String(v, StandardCharsets.UTF_8));
      }
    }
    for (int t = 0; t < threads; t++) {
      assertThat(again.get("new" + t, "k", NOW)).isNotNull();
    }
  }
}
