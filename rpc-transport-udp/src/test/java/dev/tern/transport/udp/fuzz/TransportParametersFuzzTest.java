package dev.tern.transport.udp.fuzz;

import static dev.tern.transport.udp.fuzz.ServerHarness.check;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tern.transport.udp.connection.TransportParameters;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The handshake message decoder, {@link TransportParameters#decode}, over arbitrary bytes. It
 * must not throw: a bad message is a description (a TRANSPORT_PARAMETER_ERROR, RFC 9000 §7.4).
 * A message it accepts must keep the rules it checks (RFC 9000 §18.2), and encoding the decoded
 * parameters again must decode to the same parameters.
 */
class TransportParametersFuzzTest {

  /** The input is one handshake message. */
  @FuzzTest
  void parameters(byte[] message) {
    TransportParameters p = new TransportParameters();
    String error = p.decode(ByteBuffer.wrap(message));
    if (error != null) {
      check(!error.isEmpty(), () -> "an empty error description");
      return;
    }
    check(p.messageType == TransportParameters.CLIENT_HELLO
        || p.messageType == TransportParameters.SERVER_HELLO, () -> "message type " + p.messageType);
    check(p.initialSourceConnectionId != null, () -> "accepted without initial_source_connection_id");
    check(p.maxUdpPayloadSize >= 1200, () -> "max_udp_payload_size " + p.maxUdpPayloadSize);
    check(p.maxAckDelayMs < 1 << 14, () -> "max_ack_delay " + p.maxAckDelayMs);
    ByteBuffer out = ByteBuffer.allocate(2 * message.length + TransportParameters.MAX_MESSAGE_BYTES);
    p.encode(out);
    TransportParameters q = new TransportParameters();
    String again = q.decode(out.flip());
    check(again == null, () -> "re-encoded parameters rejected: " + again);
    check(describe(q).equals(describe(p)), () -> "re-encoded parameters differ:\n" + describe(p)
        + "\n" + describe(q));
  }

  private static String describe(TransportParameters p) {
    return "type=" + p.messageType + " idle=" + p.maxIdleTimeoutMs + " udp=" + p.maxUdpPayloadSize
        + " data=" + p.initialMaxData + " stream=" + p.initialMaxStreamData + " streams="
        + p.initialMaxStreams + " ackDelay=" + p.maxAckDelayMs + " scid="
        + p.initialSourceConnectionId + " version=" + p.chosenVersion + "/" + p.attemptedVersion
        + " rpc=" + Arrays.toString(p.rpcVersions) + " ts=" + p.wantsReceiveTimestamps;
  }
}
