package dev.tern.transport.udp.recovery;

/**
 * What a sent packet carried, as recovery records it (one byte per frame record): enough to
 * re-queue exactly the frames a loss takes away (RFC 9002 §6, "retransmit frames, not packets").
 */
public final class SentFrameType {
  /** Stream data: a = stream id, b = offset, length, fin in the flag. */
  public static final byte STREAM = 1;
  /** Stream data with FIN. */
  public static final byte STREAM_FIN = 2;
  /** An ACK: a = largest acknowledged. Not retransmitted. */
  public static final byte ACK = 3;
  /** CRYPTO: b = offset, length. */
  public static final byte CRYPTO = 4;
  /** MAX_DATA: re-sent with the current value. */
  public static final byte MAX_DATA = 5;
  /** MAX_STREAM_DATA: a = stream id. */
  public static final byte MAX_STREAM_DATA = 6;
  /** MAX_STREAMS. */
  public static final byte MAX_STREAMS = 7;
  /** RESET_STREAM: a = stream id. */
  public static final byte RESET_STREAM = 8;
  /** STOP_SENDING: a = stream id. */
  public static final byte STOP_SENDING = 9;
  /** HANDSHAKE_DONE. */
  public static final byte HANDSHAKE_DONE = 10;
  /** NEW_CONNECTION_ID: a = sequence number. */
  public static final byte NEW_CONNECTION_ID = 11;
  /** DATA_BLOCKED. */
  public static final byte DATA_BLOCKED = 12;
  /** STREAM_DATA_BLOCKED: a = stream id. */
  public static final byte STREAM_DATA_BLOCKED = 13;
  /** PING (probes): nothing to retransmit. */
  public static final byte PING = 14;
  /** PATH_CHALLENGE: a = its data; sent again while the path is not validated. */
  public static final byte PATH_CHALLENGE = 15;
  /** NEW_TICKET (server): re-sent until acknowledged. */
  public static final byte NEW_TICKET = 24;

  /** NEW_TOKEN: the server's token, sent again while not acknowledged (RFC 9000 §13.3). */
  public static final byte NEW_TOKEN = 20;

  private SentFrameType() {}
}
