package dev.tern.transport.udp.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Keeps the checked-in seed corpus equal to what {@link Seeds} builds with today's encoders, so a
 * change of the wire format cannot leave the fuzz targets starting from stale seeds. Run with
 * {@code -Dfuzz.writeSeeds=true} to write the files instead (then review and commit them).
 */
class SeedCorpusTest {
  static final Path CORPUS = Path.of("src/test/resources/dev/tern/transport/udp/fuzz");

  @Test
  void checkedInSeedsAreWhatTheEncodersBuild() throws IOException {
    boolean write = Boolean.getBoolean("fuzz.writeSeeds");
    for (Map.Entry<String, byte[]> seed : Seeds.all().entrySet()) {
      Path file = CORPUS.resolve(seed.getKey());
      if (write) {
        Files.createDirectories(file.getParent());
        Files.write(file, seed.getValue());
      }
      assertThat(file).as("seed %s (regenerate with -Dfuzz.writeSeeds=true)", seed.getKey())
          .exists().hasBinaryContent(seed.getValue());
    }
  }

  @Test
  void theConversationSeedReachesTheServersStreams() {
    ServerHarness server = new ServerHarness();
    java.util.List<Long> sizes = new java.util.ArrayList<>();
    byte[] seed = Seeds.all().get("ServerReceiveFuzzTestInputs/datagrams/conversation");
    java.nio.ByteBuffer in = java.nio.ByteBuffer.wrap(seed);
    dev.tern.transport.udp.packet.PacketHeader header =
        new dev.tern.transport.udp.packet.PacketHeader();
    while (in.hasRemaining()) {
      int control = in.get() & 0xff;
      byte[] d = new byte[in.getShort() & 0xffff];
      in.get(d);
      if (control >>> 3 > 0) {
        server.advance((1L << (control >>> 3)) * 1000);
      }
      java.nio.ByteBuffer datagram = java.nio.ByteBuffer.wrap(d);
      Wire.reseal(datagram, header, server); // the seed is in open form
      server.receive(datagram, 0);
      sizes.add((long) d.length);
    }
    assertThat(server.demux().connections()).as("datagrams %s, dropped %d, failed to open %d",
        sizes, server.demux().dropped(), server.demux().packetsFailedToOpen()).hasSize(1);
    dev.tern.transport.udp.connection.Connection c = server.demux().connections().get(0);
    assertThat(c.state()).isEqualTo(dev.tern.transport.udp.connection.ConnectionState.ESTABLISHED);
    assertThat(c.stream(0)).as("the client's stream 0, datagrams %s", sizes).isNotNull();
    assertThat(c.stream(0).receive().readableBytes()).as("datagrams %s", sizes).isEqualTo(3000);
  }

  @Test
  void theKnownBadSeedsAreValidUpToTheBadField() {
    // The huge max_idle_timeout is a legal varint: the message decodes, only its use is wrong.
    assertThat(new dev.tern.transport.udp.connection.TransportParameters()
        .decode(java.nio.ByteBuffer.wrap(Wire.encode(Seeds.hugeIdleTimeoutHello())))).isNull();
    assertThat(Seeds.HUGE_IDLE_TIMEOUT_MS * 1_000_000L).as("nanoseconds wrap").isNegative();
    // The ACK decodes as a frame; only its delay is out of any sane range.
    dev.tern.transport.udp.frame.AckFrame ack = new dev.tern.transport.udp.frame.AckFrame();
    java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(Wire.ackWithRawDelay(5, Seeds.HUGE_ACK_DELAY, 2));
    b.get();
    assertThat(ack.decode(b, 2)).isTrue();
    assertThat(ack.ackDelay).isEqualTo((1L << 62) - 1);
    assertThat(ack.smallest[0]).isEqualTo(3);
  }
}
