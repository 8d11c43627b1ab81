package dev.tern.transport.udp.fuzz;

import static dev.tern.transport.udp.fuzz.ServerHarness.check;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tern.transport.udp.frame.FrameReader;
import java.nio.ByteBuffer;

/**
 * Every frame decoder, through {@link FrameReader}, over an arbitrary packet payload. The reader
 * must not throw; it either decodes every frame or names the type of the first malformed one
 * (a FRAME_ENCODING_ERROR, RFC 9000 §12.4). Each decoded view must lie inside the payload and keep
 * the RFC's field rules ({@link FrameChecker}); and the frames, encoded again with the frame
 * classes' own encoders, must decode to the same frames.
 */
class FrameReaderFuzzTest {

  /** The input is one packet payload. */
  @FuzzTest
  void frames(byte[] payload) {
    ByteBuffer in = ByteBuffer.wrap(payload);
    FrameChecker first = new FrameChecker(0, payload.length, 3 * payload.length + 64);
    int result = new FrameReader().read(in, first);
    check(in.limit() == payload.length && in.position() <= payload.length, () -> "reader moved the limit");
    check(result == FrameReader.OK || result >= 0, () -> "result " + result);
    if (result == FrameReader.OK) {
      check(!in.hasRemaining(), () -> "OK with " + in.remaining() + " bytes unread");
    }
    if (!first.exact) {
      return;
    }
    ByteBuffer again = first.reencoded.flip();
    FrameChecker second = new FrameChecker(0, again.limit(), 3 * again.limit() + 64);
    int resultAgain = new FrameReader().read(again, second);
    check(resultAgain == FrameReader.OK, () -> "re-encoded frames do not decode (type 0x"
        + Integer.toHexString(resultAgain) + "):\n" + first.seen);
    check(second.seen.toString().equals(first.seen.toString()), () -> "re-encoded frames differ:\n"
        + first.seen + "---\n" + second.seen);
  }
}
