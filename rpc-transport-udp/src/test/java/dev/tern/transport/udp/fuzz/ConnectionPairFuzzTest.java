package dev.tern.transport.udp.fuzz;

import static dev.tern.transport.udp.fuzz.ServerHarness.check;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tern.transport.udp.connection.ConnectionState;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Frames past packet protection, both ways: a real client and server ({@link PairHarness}) finish
 * a handshake with the fixed test keys and open a stream, then each record of the input puts its
 * bytes, as plaintext frames, into the next 1-RTT packet one side really sends (sealed again with
 * that side's keys), or into a new client INITIAL to the server's demultiplexer (sealed with the
 * Initial keys of its Destination Connection ID). So the fuzzer drives the frame decoders and
 * the connection state of both a client and a server whose packets authenticate, which random
 * bytes never would. Invariants are checked after every step; an hour of silence at the end
 * must leave neither side with a connection.
 *
 * <p>Input layout, repeated until the input ends ({@link #record} writes it):
 *
 * <pre>
 *   control (1 byte)  bit 0: 0 to the server, 1 to the client
 *                     bit 1: 0 frames spliced into the sender's next 1-RTT packet;
 *                            1 to the server: a new INITIAL carrying the frames;
 *                              to the client: the bytes as an unprotected datagram
 *                     bit 2: both applications first read stream 0 (windows open)
 *                     bits 3-7: n; first advance the clock by 2^n microseconds (0: not at all)
 *   length (2 bytes, big-endian, at most 1400)
 *   frames (length bytes, fewer if the input ends)
 * </pre>
 */
class ConnectionPairFuzzTest {
  static final int TO_CLIENT = 1;
  static final int OTHER_FORM = 2;
  static final int READ_FIRST = 4;
  static final int MAX_RECORD = 1400;
  /** An hour: past any idle timeout the pair may have agreed (RFC 9000 §10.1). */
  static final long HOUR_NS = 3_600_000_000_000L;

  /** The input is a sequence of control-prefixed frame records. */
  @FuzzTest
  void conversation(byte[] input) {
    PairHarness pair = new PairHarness();
    ByteBuffer in = ByteBuffer.wrap(input);
    while (in.remaining() >= 3) {
      int control = in.get() & 0xff;
      int length = Math.min(Math.min(in.getShort() & 0xffff, MAX_RECORD), in.remaining());
      byte[] frames = new byte[length];
      in.get(frames);
      int shift = control >>> 3;
      if (shift > 0) {
        pair.advance((1L << shift) * 1000L);
      }
      if ((control & READ_FIRST) != 0) {
        pair.readBothSides();
      }
      boolean toClient = (control & TO_CLIENT) != 0;
      if ((control & OTHER_FORM) == 0) {
        pair.splice(toClient, frames);
      } else if (toClient) {
        pair.rawToClient(frames);
      } else {
        pair.initialToServer(frames);
      }
    }
    pair.runTimers(ServerHarness.MAX_TIMER_ROUNDS);
    pair.advance(HOUR_NS);
    pair.advance(HOUR_NS);
    check(pair.server.demux().connections().isEmpty(), () -> "an hour of silence later the"
        + " server still holds " + pair.server.demux().connections());
    check(pair.client.state() == ConnectionState.CLOSED, () -> "an hour of silence later the"
        + " client is " + pair.client);
  }

  /** The record of one step in this target's input layout. */
  static byte[] record(int control, byte[] frames) {
    byte[] r = Arrays.copyOf(new byte[] {(byte) control, (byte) (frames.length >>> 8),
        (byte) frames.length}, 3 + frames.length);
    System.arraycopy(frames, 0, r, 3, frames.length);
    return r;
  }
}
