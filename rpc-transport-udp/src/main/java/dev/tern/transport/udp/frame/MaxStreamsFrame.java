package dev.tern.transport.udp.frame;

import dev.tern.transport.udp.packet.VarInt;
import java.nio.ByteBuffer;

/** MAX_STREAMS: how many bidirectional streams the peer may open (RFC 9000 §19.11) (docs/protocol.md §6). A reusable view: {@link #decode} fills it in place. */
public final class MaxStreamsFrame {
  /** The cumulative stream count. */
  public long maximumStreams;

  /** Writes the frame, type included. */
  public static void encode(ByteBuffer out, long maximumStreams) {
    out.put((byte) FrameType.MAX_STREAMS);
    VarInt.write(out, maximumStreams);
  }

  /** The encoded length, type included. */
  public static int encodedLength(long maximumStreams) {
    return 1 + VarInt.size(maximumStreams);
  }

  /** Reads the fields following the type byte; false if malformed. */
  public boolean decode(ByteBuffer in) {
    maximumStreams = VarInt.read(in);
    return maximumStreams >= 0;
  }
}
