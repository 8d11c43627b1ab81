package dev.tern.transport.udp.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tern.transport.udp.packet.PacketHeader;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The whole server receive path: the input is a sequence of datagrams fed one by one into a
 * server endpoint (ServerDemux, then each Connection's receive path, frame dispatch, recovery,
 * streams), with the clock moving between them; {@link ServerHarness} checks the invariants after
 * every datagram and every timer.
 *
 * <p>Input layout, repeated until the input ends ({@link #record} writes it):
 *
 * <pre>
 *   control (1 byte)  bit 0: protect every packet as the client would (Wire.reseal: the input
 *                            is then in open form, so mutations reach the frames)
 *                     bit 1: pad the datagram with zeros to 1200 bytes (RFC 9000 §14.1)
 *                     bit 2: the datagram comes from a second path (address)
 *                     bits 3-7: n; first advance the clock by 2^n microseconds (n = 0: not at all)
 *   length (2 bytes, big-endian, at most 1500)
 *   datagram (length bytes, fewer if the input ends)
 * </pre>
 */
class ServerReceiveFuzzTest {
  static final int RESEAL = 1;
  static final int PAD = 2;
  static final int OTHER_PATH = 4;
  static final int MAX_DATAGRAM = 1500;

  /** The input is a sequence of control-prefixed datagrams. */
  @FuzzTest
  void datagrams(byte[] input) {
    ServerHarness server = new ServerHarness();
    PacketHeader header = new PacketHeader();
    ByteBuffer in = ByteBuffer.wrap(input);
    while (in.remaining() >= 3) {
      int control = in.get() & 0xff;
      int length = Math.min(in.getShort() & 0xffff, MAX_DATAGRAM);
      length = Math.min(length, in.remaining());
      byte[] bytes = new byte[(control & PAD) != 0 ? Math.max(length, Wire.MIN_INITIAL_DATAGRAM)
          : length];
      in.get(bytes, 0, length);
      int shift = control >>> 3;
      if (shift > 0) {
        server.advance((1L << shift) * 1000L);
      }
      ByteBuffer datagram = ByteBuffer.wrap(bytes);
      if ((control & RESEAL) != 0) {
        Wire.reseal(datagram, header, server);
      }
      server.receive(datagram, (control & OTHER_PATH) != 0 ? 1 : 0);
    }
    server.runTimers(ServerHarness.MAX_TIMER_ROUNDS);
  }

  /** The record of one datagram in this target's input layout. */
  static byte[] record(int control, byte[] datagram) {
    byte[] r = Arrays.copyOf(new byte[] {(byte) control, (byte) (datagram.length >>> 8),
        (byte) datagram.length}, 3 + datagram.length);
    System.arraycopy(datagram, 0, r, 3, datagram.length);
    return r;
  }
}
