package dev.tern.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.spi.SessionStores;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a {@link TransportMemory} keeps of a server's {@code alt-svc} advertisement. */
class TransportMemoryAdvertisementTest {
  @TempDir Path dir;
  private final AtomicLong wall = new AtomicLong(1_800_000_000_000L);
  private final AtomicLong tick = new AtomicLong();

  private static AltSvc.Alternative udp(int port, long maxAge, boolean persist, String key) {
    return new AltSvc.Alternative("tern-udp", "", port, maxAge, persist, Map.of("key", key, "kid", "1"));
  }

  private TransportMemory memory() {
    return TransportMemory.builder().ticker(tick::get).wallClock(wall::get).build();
  }

  @Test
  void anAdvertisementLastsItsMaxAge() {
    TransportMemory m = memory();
    m.advertised("a:1", Map.of("udp", udp(7443, 60, true, "k")));
    assertThat(m.advertisement("a:1", "udp").port()).isEqualTo(7443);
    assertThat(m.advertisement("a:1", "quic")).isNull();
    assertThat(m.advertisement("b:1", "udp")).isNull();
    wall.addAndGet(59_000);
    assertThat(m.advertisement("a:1", "udp")).isNotNull();
    wall.addAndGet(1_000);
    assertThat(m.advertisement("a:1", "udp")).as("after 60 s").isNull();
  }

  @Test
  void aNewListReplacesTheOldAndClearForgetsIt() {
    TransportMemory m = memory();
    m.advertised("a:1", Map.of("udp", udp(7443, 60, true, "k"),
        "quic", new AltSvc.Alternative("h3", "", 443, 60, false, Map.of())));
    m.advertised("a:1", Map.of("quic", new AltSvc.Alternative("h3", "", 8443, 60, false, Map.of())));
    assertThat(m.advertisement("a:1", "udp")).isNull();
    assertThat(m.advertisement("a:1", "quic").port()).isEqualTo(8443);
    m.advertised("a:1", Map.of());
    assertThat(m.advertisement("a:1", "quic")).isNull();
  }

  @Test
  void aNewOrChangedAdvertisementClearsTheTransportsMarkAndTheSameOneDoesNot() {
    TransportMemory m = memory();
    m.markBroken("a:1", "udp");
    m.advertised("a:1", Map.of("udp", udp(7443, 60, true, "k1")));
    assertThat(m.isBroken("a:1", "udp")).as("marked before the server said where it is").isFalse();
    m.markBroken("a:1", "udp");
    m.advertised("a:1", Map.of("udp", udp(7443, 60, true, "k1")));
    assertThat(m.isBroken("a:1", "udp")).as("the same advertisement again").isTrue();
    m.advertised("a:1", Map.of("udp", udp(7443, 60, true, "k2")));
    assertThat(m.isBroken("a:1", "udp")).as("a rotated key").isFalse();
    m.markBroken("a:1", "udp");
    m.advertised("a:1", Map.of("udp", udp(7444, 60, true, "k2")));
    assertThat(m.isBroken("a:1", "udp")).as("another port").isFalse();
    m.markBroken("b:443", "udp");
    m.advertised("b:443", Map.of("udp", udp(443, 60, true, "k")));
    assertThat(m.isBroken("b:443", "udp")).as("first heard on the port where it failed").isTrue();
    m.markBroken("[::1]:443", "udp");
    m.advertised("[::1]:443", Map.of("udp", udp(8443, 60, true, "k")));
    assertThat(m.isBroken("[::1]:443", "udp")).as("first heard on another port").isFalse();
  }

  @Test
  void aNetworkChangeKeepsOnlyWhatTheServerSaidPersists() {
    TransportMemory m = memory();
    m.advertised("a:1", Map.of("udp", udp(7443, 600, true, "k")));
    m.advertised("b:1", Map.of("udp", udp(7443, 600, false, "k")));
    m.markWorked("a:1", "udp");
    m.markBroken("a:1", "quic");
    m.networkChanged();
    assertThat(m.advertisement("a:1", "udp")).isNotNull();
    assertThat(m.advertisement("b:1", "udp")).isNull();
    assertThat(m.lastWorked("a:1")).isNull();
    assertThat(m.isBroken("a:1", "quic")).isFalse();
  }

  @Test
  void anAdvertisementSurvivesARestartForWhatIsLeftOfItsMaxAge() {
    Path file = dir.resolve("state");
    TransportMemory before = TransportMemory.builder().ticker(tick::get).wallClock(wall::get)
        .sessionStore(SessionStores.file(file, 16)).build();
    before.advertised("a:1", Map.of("udp", udp(7443, 3600, true, "k")));
    wall.addAndGet(TimeUnit.MINUTES.toMillis(30));
    TransportMemory after = TransportMemory.builder().ticker(new AtomicLong(5)::get).wallClock(wall::get)
        .sessionStore(SessionStores.file(file, 16)).build();
    assertThat(after.advertisement("a:1", "udp")).isEqualTo(udp(7443, 3600, true, "k"));
    wall.addAndGet(TimeUnit.MINUTES.toMillis(30));
    assertThat(after.advertisement("a:1", "udp")).as("an hour after it was heard").isNull();
    TransportMemory later = TransportMemory.builder().wallClock(wall::get)
        .sessionStore(SessionStores.file(file, 16)).build();
    assertThat(later.advertisement("a:1", "udp")).isNull();
  }

  @Test
  void theSameAdvertisementRewritesTheStoreOnlyOnceHalfItsMaxAgeHasPassed() {
    java.util.concurrent.atomic.AtomicInteger writes = new java.util.concurrent.atomic.AtomicInteger();
    dev.tern.rpc.spi.SessionStore inner = SessionStores.inMemory(16);
    dev.tern.rpc.spi.SessionStore counting = new dev.tern.rpc.spi.ForwardingSessionStore(inner) {
      @Override public void put(String s, String k, byte[] v, long e) { writes.incrementAndGet(); super.put(s, k, v, e); }

      @Override public void remove(String s, String k) { writes.incrementAndGet(); super.remove(s, k); }
    };
    TransportMemory m = TransportMemory.builder().wallClock(wall::get).sessionStore(counting).build();
    for (int i = 0; i < 100; i++) {
      m.advertised("a:1", Map.of("udp", udp(7443, 100, true, "k")));
      wall.addAndGet(400);
    }
    assertThat(writes.get()).as("40 s of responses, max-age 100 s").isEqualTo(1);
    wall.addAndGet(11_000);
    m.advertised("a:1", Map.of("udp", udp(7443, 100, true, "k")));
    assertThat(writes.get()).as("51 s after the first").isEqualTo(2);
  }

  /** A file written before advertisements were kept (format 1) is still read. */
  @Test
  void aStoreOfTheFirstFormatIsRead() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeByte(1);
    out.writeInt(1);
    out.writeUTF("a:1");
    out.writeBoolean(true);
    out.writeUTF("tcp");
    out.writeLong(TimeUnit.MILLISECONDS.toNanos(40));
    out.writeInt(-1);
    out.writeInt(0);
    out.flush();
    dev.tern.rpc.spi.SessionStore store = SessionStores.inMemory(4);
    store.put(TransportMemory.STORE_SERVER, TransportMemory.STORE_KIND, bytes.toByteArray(), wall.get() + 60_000);
    TransportMemory m = TransportMemory.builder().wallClock(wall::get).sessionStore(store).build();
    assertThat(m.lastWorked("a:1")).isEqualTo("tcp");
  }
}
