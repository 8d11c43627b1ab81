package dev.tern.transport.udp.frame;

import dev.tern.transport.udp.packet.VarInt;
import dev.tern.transport.udp.util.Buffers;
import java.nio.Buffer;
import java.nio.ByteBuffer;

/**
 * NEW_TICKET (Tern's frame type 0x3c, docs/protocol.md §9.10): a resumption ticket the server
 * issues once the handshake is confirmed, in the role of TLS 1.3's NewSessionTicket (RFC 8446
 * §4.6.1). Server to client, 1-RTT packets only; retransmitted if lost.
 *
 * <pre>
 * NEW_TICKET {
 *   Type (i) = 0x3c,
 *   Lifetime (i),            // ms the ticket stays valid from its receipt
 *   Max Early Data (i),      // bytes of stream data the server takes in 0-RTT on resumption
 *   Nonce Length (8), Nonce (..),   // 1..32 bytes; psk = ticketPsk(nonce)
 *   Ticket Id Length (8), Ticket Id (..),  // 1..255 bytes, opaque to the client
 * }
 * </pre>
 *
 * <p>A reusable view: {@link #decode} records where the nonce and id lie in the packet, it copies
 * nothing; tickets are rare, so the handler copies what it keeps.
 */
public final class NewTicketFrame {
  /** Longest nonce. */
  public static final int MAX_NONCE_BYTES = 32;

  /** The ticket's lifetime, ms. */
  public long lifetimeMillis;
  /** The early-data limit, bytes. */
  public long maxEarlyDataBytes;
  /** The buffer the nonce and id lie in (the packet being read). */
  public ByteBuffer source;
  /** Absolute offset and length of the nonce in {@link #source}. */
  public int nonceOffset;
  /** See {@link #nonceOffset}. */
  public int nonceLength;
  /** Absolute offset and length of the ticket id in {@link #source}. */
  public int idOffset;
  /** See {@link #idOffset}. */
  public int idLength;

  /** The encoded length of a frame with these fields, type included. */
  public static int encodedLength(long lifetimeMillis, long maxEarlyDataBytes, int nonceLength,
      int idLength) {
    return 1 + VarInt.size(lifetimeMillis) + VarInt.size(maxEarlyDataBytes) + 1 + nonceLength
        + 1 + idLength;
  }

  /** Writes the frame, type included. */
  public static void encode(ByteBuffer out, long lifetimeMillis, long maxEarlyDataBytes,
      byte[] nonce, byte[] ticketId) {
    out.put((byte) FrameType.NEW_TICKET);
    VarInt.write(out, lifetimeMillis);
    VarInt.write(out, maxEarlyDataBytes);
    out.put((byte) nonce.length);
    out.put(nonce);
    out.put((byte) ticketId.length);
    out.put(ticketId);
  }

  /** Reads the fields following the type byte; false if malformed. */
  public boolean decode(ByteBuffer in) {
    lifetimeMillis = VarInt.read(in);
    maxEarlyDataBytes = VarInt.read(in);
    if (lifetimeMillis < 0 || maxEarlyDataBytes < 0 || !in.hasRemaining()) {
      return false;
    }
    nonceLength = in.get() & 0xff;
    if (nonceLength == 0 || nonceLength > MAX_NONCE_BYTES || in.remaining() < nonceLength + 1) {
      return false;
    }
    source = in;
    nonceOffset = in.position();
    ((Buffer) in).position(nonceOffset + nonceLength);
    idLength = in.get() & 0xff;
    if (idLength == 0 || in.remaining() < idLength) {
      return false;
    }
    idOffset = in.position();
    ((Buffer) in).position(idOffset + idLength);
    return true;
  }

  /** A copy of the nonce. */
  public byte[] nonce() {
    byte[] b = new byte[nonceLength];
    Buffers.get(source, nonceOffset, b);
    return b;
  }

  /** A copy of the ticket id. */
  public byte[] ticketId() {
    byte[] b = new byte[idLength];
    Buffers.get(source, idOffset, b);
    return b;
  }
}
