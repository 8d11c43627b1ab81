package dev.tern.transport.udp.connection;

import dev.tern.transport.udp.frame.CryptoFrame;
import dev.tern.transport.udp.handshake.HandshakeException;
import dev.tern.transport.udp.recovery.SentFrameType;
import dev.tern.transport.udp.recovery.SentPacketLog;
import java.nio.Buffer;
import java.nio.ByteBuffer;

/**
 * The handshake's message exchange (docs/protocol.md §4, §7, §10.3): one handshake message each
 * way in a single CRYPTO frame at offset 0 (RFC 9000 §19.6), re-sent until the peer's answer (or
 * acknowledgement) shows it arrived. In version 1 a message is the encoded transport parameters;
 * in the encrypted version it is a Noise message whose encrypted payload they are
 * ({@link HandshakeCrypto}).
 */
final class Handshake {
  private byte[] localMessage;
  private boolean pending;
  private boolean acked;
  private TransportParameters peer;

  /** Sets our message (kept, not copied) and queues it. */
  void setLocalMessage(byte[] message) {
    localMessage = message;
    pending = true;
    acked = false;
  }

  /** {@code params} encoded as a version 1 handshake message, or as a Noise payload. */
  static byte[] encode(TransportParameters params) {
    ByteBuffer b = ByteBuffer.allocate(TransportParameters.MAX_MESSAGE_BYTES);
    params.encode(b);
    byte[] bytes = new byte[b.position()];
    ((Buffer) b).flip();
    b.get(bytes);
    return bytes;
  }

  /** Whether our message waits to be (re)sent. */
  boolean pending() {
    return pending && localMessage != null && !acked;
  }

  /** Stops (re)sending: the peer has shown it has our message. */
  void onPeerHasIt() {
    pending = false;
    acked = true;
  }

  /** Whether the peer has shown it has our message. */
  boolean peerHasIt() {
    return acked;
  }

  /** Re-queues our message after a loss or for a probe, unless the peer has it. */
  void onLost() {
    if (!acked && localMessage != null) {
      pending = true;
    }
  }

  /** Bytes a CRYPTO frame with our message needs. */
  int frameBytes() {
    return CryptoFrame.headerLength(0, localMessage.length) + localMessage.length;
  }

  /** Writes our message as a CRYPTO frame and records it. */
  void write(ByteBuffer out, SentPacketLog log) {
    CryptoFrame.encodeHeader(out, 0, localMessage.length);
    out.put(localMessage);
    log.addFrame(SentFrameType.CRYPTO, 0, 0, localMessage.length);
    pending = false;
  }

  /** The peer's parameters once received, else null. */
  TransportParameters peer() {
    return peer;
  }

  /**
   * Takes a CRYPTO frame.
   *
   * @param crypto the Noise handshake whose message the frame carries, or null (version 1)
   * @return null if fine (including a duplicate), else the error text
   * @throws HandshakeException if the Noise message does not authenticate or is malformed
   */
  String onCrypto(CryptoFrame f, int expectedType, HandshakeCrypto crypto)
      throws HandshakeException {
    if (peer != null) {
      return null; // a retransmission of what we already have
    }
    if (f.offset != 0 || f.length > TransportParameters.MAX_MESSAGE_BYTES) {
      return "handshake message must be one CRYPTO frame at offset 0 within 1100 bytes";
    }
    ByteBuffer view = f.source.duplicate();
    ((Buffer) view).limit(f.dataOffset + f.length).position(f.dataOffset);
    if (crypto != null) {
      view = ByteBuffer.wrap(crypto.readPeer(view));
    }
    TransportParameters p = new TransportParameters();
    String err = p.decode(view);
    if (err != null) {
      return err;
    }
    if (p.messageType != expectedType) {
      return "unexpected handshake message type " + p.messageType;
    }
    peer = p;
    return null;
  }
}
