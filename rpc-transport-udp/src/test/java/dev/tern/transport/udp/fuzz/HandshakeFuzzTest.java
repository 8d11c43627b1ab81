package dev.tern.transport.udp.fuzz;

import static dev.tern.transport.udp.fuzz.ServerHarness.check;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.ByteBuffer;

/**
 * The handshake as the server uses it: the input is the client's transport parameters, carried
 * as the encrypted payload of a real Noise ClientHello in the one CRYPTO frame of an otherwise
 * valid client INITIAL ({@link Wire#initialWithHandshake}), so every input gets through Noise
 * and reaches the connection's handshake (Handshake.onCrypto, TransportParameters and the
 * server's use of the client's parameters). Mutated Noise messages themselves come through
 * {@link ServerReceiveFuzzTest}, whose conversation seed starts with a real ClientHello. The server then answers and its timers run to
 * their end on the virtual clock, and an hour later the connection must be gone; {@link ServerHarness} checks the invariants after every step.
 */
class HandshakeFuzzTest {
  /**
   * Longest parameters tried: what a ClientHello can carry, 1,100 bytes less its header (3) and
   * Noise's e, encrypted s and tag (32 + 48 + 16); the client refuses to write more.
   */
  static final int MAX_MESSAGE = 1001;

  /** The input is the ClientHello's transport parameters. */
  @FuzzTest
  void clientHello(byte[] message) {
    if (message.length > MAX_MESSAGE) {
      return;
    }
    ServerHarness server = new ServerHarness();
    server.receive(ByteBuffer.wrap(Wire.sealed(Wire.initialWithHandshake(message))), 0);
    check(server.demux().connections().size() <= 1, () -> "one INITIAL, one connection");
    server.runTimers(ServerHarness.MAX_TIMER_ROUNDS);
    // RFC 9000 §10.1: with the client silent, the idle timeout (ours, or the client's if lower)
    // ends the connection; an hour later nothing may be left of it.
    server.advance(3_600_000_000_000L);
    check(server.demux().connections().isEmpty(), () -> "a silent client's connection outlives the idle"
        + " timeout: " + server.demux().connections());
  }
}
