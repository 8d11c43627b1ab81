package dev.tern.netlab.link;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CustomLinksTest {
  @Test
  void theMobileLikeSpecGivesEveryField() {
    LinkProfile p = CustomLinks.parse(
        "down=1.1mbit,up=0.5mbit,rtt=200ms,loss=0.6%,burst=6,jitter=50ms,reorder=0.2%,queue=64kb");
    LinkConfig down = p.serverToClient();
    LinkConfig up = p.clientToServer();
    assertThat(p.name()).isEqualTo("custom");
    assertThat(down.rateBitsPerSecond()).isEqualTo(1_100_000L);
    assertThat(up.rateBitsPerSecond()).isEqualTo(500_000L);
    assertThat(p.rttNs()).isEqualTo(200_000_000L);
    assertThat(up.propagationDelayNs()).isEqualTo(100_000_000L);
    for (LinkConfig c : new LinkConfig[] {up, down}) {
      assertThat(c.burstLossRate()).isEqualTo(0.006);
      assertThat(c.meanBurstPackets()).isEqualTo(6);
      assertThat(c.lossProbability()).isZero();
      assertThat(c.jitterNs()).isEqualTo(50_000_000L);
      assertThat(c.reorderProbability()).isEqualTo(0.002);
      assertThat(c.reorderExtraDelayNs()).isEqualTo(20_000_000L);
      assertThat(c.queueLimitBytes()).isEqualTo(64_000L);
      assertThat(c.queueLimitPackets()).isZero();
    }
    assertThat(CustomLinks.format(p)).isEqualTo("down=1.1mbit,up=0.5mbit,rtt=200ms,jitter=50ms,loss=0.6%,burst=6,"
        + "reorder=0.2%,reorder-delay=20ms,duplicate=0%,corrupt=0%,queue=64000b");
    assertThat(p.description()).isEqualTo(CustomLinks.format(p));
    assertThat(CustomLinks.describe(p)).contains("link custom: down=1.1mbit")
        .contains("server-to-client (down): rate 1.1 Mbit/s; delay 100 ms, jitter 50 ms peak-to-peak")
        .contains("loss Gilbert-Elliott 0.6% in bursts of 6 packets (slot 10.90909 ms)")
        .contains("client-to-server (up):   rate 0.5 Mbit/s").contains("queue 64000 bytes (1024 ms at the mean rate)");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
      // spec | its canonical form
      "rtt=50ms | down=unlimited,up=unlimited,rtt=50ms,jitter=0ms,loss=0%,reorder=0%,duplicate=0%,corrupt=0%,queue=none",
      "rate=2mbit,up-rate=1mbit,delay=10ms,down-delay=30ms,loss=1%,up-loss=0 | down=2mbit,up=1mbit,up-delay=10ms,"
          + "down-delay=30ms,jitter=0ms,up-loss=0%,down-loss=1%,reorder=0%,duplicate=0%,corrupt=0%,queue=48000b",
      "down=20mbit,up=5Mbit/s,rtt=0.1s,loss=0.02,queue=default | down=20mbit,up=5mbit,rtt=100ms,jitter=0ms,loss=2%,"
          + "reorder=0%,duplicate=0%,corrupt=0%,up-queue=125000b,down-queue=500000b",
      "down=800kbit,up=64000bit,rtt=300ms,loss=1%,burst=3,random-loss=0.5%,reorder=1%,reorder-delay=5ms,"
          + "duplicate=0.1%,corrupt=0.01%,up-queue=20pkt,down-queue=32kib+40pkt,name=sat | down=0.8mbit,"
          + "up=0.064mbit,rtt=300ms,jitter=0ms,loss=1%,burst=3,random-loss=0.5%,reorder=1%,reorder-delay=5ms,"
          + "duplicate=0.1%,corrupt=0.01%,up-queue=20pkt,down-queue=32768b+40pkt",
      " down = 1gbit , up=1gbit,rtt=800us,jitter=0.5ms,queue=1.5mb | down=1000mbit,up=1000mbit,rtt=0.8ms,"
          + "jitter=0.5ms,loss=0%,reorder=0%,duplicate=0%,corrupt=0%,queue=1500000b",
  })
  void goldenSpecsParseToTheirCanonicalForm(String spec, String canonical) {
    LinkProfile p = CustomLinks.parse(spec);
    assertThat(CustomLinks.format(p)).isEqualTo(canonical);
    assertThat(CustomLinks.format(CustomLinks.parse(canonical))).isEqualTo(canonical);
  }

  @Test
  void aBundledTraceSpecMatchesItsProfile() {
    LinkProfile p = CustomLinks.parse(
        "trace:down=bundled:Verizon-LTE-short.down,up=bundled:Verizon-LTE-short.up,rtt=70ms,name=my-lte");
    LinkProfile profile = LinkProfiles.get("lte-verizon");
    assertThat(p.name()).isEqualTo("my-lte");
    assertThat(p.serverToClient().trace().source()).isEqualTo("bundled:Verizon-LTE-short.down");
    assertThat(p.serverToClient().meanRateBitsPerSecond()).isEqualTo(profile.serverToClient().meanRateBitsPerSecond());
    assertThat(p.serverToClient().queueLimitBytes()).isEqualTo(profile.serverToClient().queueLimitBytes());
    assertThat(p.clientToServer().queueLimitBytes()).isEqualTo(profile.clientToServer().queueLimitBytes());
    assertThat(p.rttNs()).isEqualTo(profile.rttNs());
  }

  @Test
  void everyProfileFormatsToASpecThatRebuildsIt() {
    for (String name : LinkProfiles.names()) {
      LinkProfile p = LinkProfiles.get(name);
      LinkProfile again = CustomLinks.parse(CustomLinks.format(p));
      assertThat(CustomLinks.format(again)).as(name).isEqualTo(CustomLinks.format(p));
      assertThat(again.serverToClient().describe()).as(name).isEqualTo(p.serverToClient().describe());
      assertThat(again.clientToServer().describe()).as(name).isEqualTo(p.clientToServer().describe());
    }
  }

  @Test
  void aLinkFileTakesTheSameKeysAndResolvesTracesBesideIt(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("slow.down"), "10\n20\n");
    Files.writeString(dir.resolve("my.link"), "# a link of my own\n\nname = home\ndown-trace=slow.down\n"
        + "up: 2mbit\nrtt=40ms\n! properties-style comment\nloss=0.5%\n");
    LinkProfile p = CustomLinks.load(dir.resolve("my.link"));
    assertThat(p.name()).isEqualTo("home");
    assertThat(p.serverToClient().trace().source()).isEqualTo(dir.resolve("slow.down").toString());
    assertThat(p.serverToClient().meanRateBitsPerSecond()).isEqualTo(1_200_000L);
    assertThat(p.clientToServer().rateBitsPerSecond()).isEqualTo(2_000_000L);
    assertThat(p.serverToClient().lossProbability()).isEqualTo(0.005);
    assertThat(CustomLinks.format(p)).startsWith("down-trace=" + dir.resolve("slow.down") + ",up=2mbit,rtt=40ms,");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
      // spec | what the message must contain
      "rat=1mbit | unknown key 'rat' (in 'rat=1mbit'); accepted keys: down, up, rtt",
      "down=1mbit,up-rat=1mbit | unknown key 'up-rat'",
      "rtt=200 | key 'rtt': bad value '200'; accepted: a time such as 200ms, 0.5s or 800us",
      "down=1.1mbps | key 'down': bad value '1.1mbps'; accepted: a rate in bits per second such as 500kbit",
      "up=-1mbit | key 'up': bad value '-1mbit'",
      "loss=5 | key 'loss': bad value '5'; accepted: a probability such as 0.6% or 0.006 (at most 100% or 1); "
          + "for a percentage write 5%",
      "loss=0.5,burst=0.5 | key 'burst': bad value '0.5'; accepted: a mean burst length in packets, at least 1",
      "reorder=x% | key 'reorder': bad value 'x%'",
      "queue=64 | key 'queue': bad value '64'; accepted: a droptail size such as 64kb",
      "queue=1000b | key 'queue': bad value '1000b'",
      "down-queue=10pkt+20pkt | key 'down-queue': bad value '10pkt+20pkt'",
      "burst=6 | key 'burst' needs 'loss'",
      "loss=1%,loss=2% | key 'loss' given twice",
      "rtt=100ms,delay=50ms | key 'rtt' and key 'delay' both set the delay",
      "rtt=200ms,jitter=300ms | key 'jitter': bad value '300ms'; accepted: a jitter of at most twice the up "
          + "direction's one-way delay (100ms here",
      "down=1mbit,down-rate=2mbit | keys 'down' and 'down-rate' both set the rate",
      "loss=1%,random-loss=1% | keys 'loss' and 'random-loss' both set random loss",
      "reorder-delay=5ms | key 'reorder-delay' needs 'reorder'",
      "trace:down=/nonexistent/x.down,up=bundled:Verizon-LTE-short.up | key 'down': bad value '/nonexistent/x.down'; accepted: a mahimahi "
          + "trace file",
      "down-trace=bundled:moon.down | key 'down-trace': bad value 'bundled:moon.down'; accepted: a mahimahi trace "
          + "file (relative to the working directory, or to the link file), or bundled:<name> with <name> one of "
          + "[Verizon-LTE-short.up",
      "down=1mbit,down-trace=bundled:Verizon-LTE-short.down | the down direction has both a rate ('1mbit') and a "
          + "trace",
      "down=1mbit,rtt | 'rtt' is not key=value",
      "name=my link | key 'name': bad value 'my link'",
      "down= | key 'down' has no value",
  })
  void badSpecsNameTheKeyTheValueAndTheAcceptedForms(String spec, String message) {
    assertThatThrownBy(() -> CustomLinks.parse(spec)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("link spec '" + spec + "': ").hasMessageContaining(message);
  }

  @Test
  void emptySpecsAndFilesAreRefused(@TempDir Path dir) throws Exception {
    assertThatThrownBy(() -> CustomLinks.parse(" ")).hasMessageContaining("link spec is empty")
        .hasMessageContaining("down=1.1mbit");
    Files.writeString(dir.resolve("empty.link"), "# nothing\n");
    assertThatThrownBy(() -> CustomLinks.load(dir.resolve("empty.link"))).hasMessageContaining("empty.link")
        .hasMessageContaining("no key=value line");
    Files.writeString(dir.resolve("bad.link"), "down=1mbit\nupp=2mbit\n");
    assertThatThrownBy(() -> CustomLinks.load(dir.resolve("bad.link"))).hasMessageContaining("bad.link")
        .hasMessageContaining("unknown key 'upp'");
    assertThatThrownBy(() -> CustomLinks.load(dir.resolve("missing.link"))).hasMessageContaining("missing.link");
  }

  @Test
  void aDirectionsOwnTraceWinsOverTheSharedRate() {
    LinkProfile p = CustomLinks.parse("rate=3mbit,down-trace=bundled:TMobile-UMTS-driving.down,rtt=150ms");
    assertThat(p.clientToServer().rateBitsPerSecond()).isEqualTo(3_000_000L);
    assertThat(p.serverToClient().trace().name()).isEqualTo("TMobile-UMTS-driving.down");
  }
}
