package dev.tern.transport.udp.fuzz;

import static dev.tern.transport.udp.fuzz.ConnectionPairFuzzTest.OTHER_FORM;
import static dev.tern.transport.udp.fuzz.ConnectionPairFuzzTest.READ_FIRST;
import static dev.tern.transport.udp.fuzz.ConnectionPairFuzzTest.TO_CLIENT;
import static dev.tern.transport.udp.fuzz.ConnectionPairFuzzTest.record;

import dev.tern.transport.udp.frame.CryptoFrame;
import dev.tern.transport.udp.frame.MaxDataFrame;
import dev.tern.transport.udp.frame.MaxStreamDataFrame;
import dev.tern.transport.udp.frame.MaxStreamsFrame;
import dev.tern.transport.udp.frame.NewConnectionIdFrame;
import dev.tern.transport.udp.frame.PathChallengeFrame;
import dev.tern.transport.udp.frame.ResetStreamFrame;
import dev.tern.transport.udp.frame.SimpleFrames;
import dev.tern.transport.udp.frame.StopSendingFrame;
import dev.tern.transport.udp.frame.StreamFrame;
import dev.tern.transport.udp.packet.ConnectionId;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Seeds of {@link ConnectionPairFuzzTest}, built with the frame encoders: records of plaintext
 * frames that the harness splices into the pair's own packets.
 */
final class PairSeeds {
  private PairSeeds() {}

  static Map<String, byte[]> all() {
    Map<String, byte[]> m = new LinkedHashMap<>();
    m.put("ConnectionPairFuzzTestInputs/conversation/streams-both-ways", concat(
        record(0, frames(out -> {
          byte[] abc = "abc".getBytes(StandardCharsets.US_ASCII);
          StreamFrame.encodeHeader(out, 4, 0, abc.length, false);
          out.put(abc);
          MaxDataFrame.encode(out, 200_000);
        })),
        record(TO_CLIENT, frames(out -> {
          MaxStreamsFrame.encode(out, 10);
          MaxStreamDataFrame.encode(out, 0, 60_000);
          byte[] back = "back".getBytes(StandardCharsets.US_ASCII);
          StreamFrame.encodeHeader(out, 1, 0, back.length, true);
          out.put(back);
        })),
        record(READ_FIRST | 10 << 3, frames(SimpleFrames::encodePing)),
        record(TO_CLIENT | 12 << 3, frames(SimpleFrames::encodePing))));
    m.put("ConnectionPairFuzzTestInputs/conversation/control-frames", concat(
        record(0, frames(out -> {
          PathChallengeFrame.encode(out, 0x0102030405060708L);
          StopSendingFrame.encode(out, 0, 7);
        })),
        record(TO_CLIENT, frames(out -> NewConnectionIdFrame.encode(out, 1, 0,
            ConnectionId.of(new byte[] {9, 9, 9, 9, 9, 9, 9, 9}), new byte[16]))),
        record(TO_CLIENT, frames(out -> ResetStreamFrame.encode(out, 0, 3, 1))),
        record(0, frames(out -> ResetStreamFrame.encode(out, 0, 4, 2)))));
    m.put("ConnectionPairFuzzTestInputs/conversation/initial-to-demux", concat(
        record(OTHER_FORM, frames(out -> {
          byte[] hello = "not a ClientHello".getBytes(StandardCharsets.US_ASCII);
          CryptoFrame.encodeHeader(out, 0, hello.length);
          out.put(hello);
          SimpleFrames.encodePing(out);
        })),
        record(TO_CLIENT | OTHER_FORM, new byte[] {0x40, 1, 2, 3, 4, 5, 6, 7, 8, 9})));
    return m;
  }

  private static byte[] frames(Consumer<ByteBuffer> writer) {
    ByteBuffer out = ByteBuffer.allocate(1400);
    writer.accept(out);
    return Arrays.copyOf(out.array(), out.position());
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      all.writeBytes(p);
    }
    return all.toByteArray();
  }
}
