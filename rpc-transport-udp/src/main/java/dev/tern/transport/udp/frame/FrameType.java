package dev.tern.transport.udp.frame;

/** Frame type codes (docs/protocol.md §6). */
public final class FrameType {
  /** PADDING. */
  public static final int PADDING = 0x00;
  /** PING. */
  public static final int PING = 0x01;
  /** ACK. */
  public static final int ACK = 0x02;
  /** ACK with receive timestamps. */
  public static final int ACK_RECEIVE_TIMESTAMPS = 0x03;
  /** RESET_STREAM. */
  public static final int RESET_STREAM = 0x04;
  /** STOP_SENDING. */
  public static final int STOP_SENDING = 0x05;
  /** CRYPTO. */
  public static final int CRYPTO = 0x06;
  /** NEW_TOKEN (RFC 9000 §19.7): server to client only. */
  public static final int NEW_TOKEN = 0x07;
  /** STREAM, lowest of 0x08..0x0f. */
  public static final int STREAM = 0x08;
  /** STREAM type bit: an Offset field is present. */
  public static final int STREAM_OFF = 0x04;
  /** STREAM type bit: a Length field is present. */
  public static final int STREAM_LEN = 0x02;
  /** STREAM type bit: FIN. */
  public static final int STREAM_FIN = 0x01;
  /** MAX_DATA. */
  public static final int MAX_DATA = 0x10;
  /** MAX_STREAM_DATA. */
  public static final int MAX_STREAM_DATA = 0x11;
  /** MAX_STREAMS (bidirectional). */
  public static final int MAX_STREAMS = 0x12;
  /** DATA_BLOCKED. */
  public static final int DATA_BLOCKED = 0x14;
  /** STREAM_DATA_BLOCKED. */
  public static final int STREAM_DATA_BLOCKED = 0x15;
  /** NEW_CONNECTION_ID. */
  public static final int NEW_CONNECTION_ID = 0x18;
  /** PATH_CHALLENGE. */
  public static final int PATH_CHALLENGE = 0x1a;
  /** PATH_RESPONSE. */
  public static final int PATH_RESPONSE = 0x1b;
  /** CONNECTION_CLOSE (transport error). */
  public static final int CONNECTION_CLOSE = 0x1c;
  /** APPLICATION_CLOSE. */
  public static final int APPLICATION_CLOSE = 0x1d;
  /** HANDSHAKE_DONE. */
  public static final int HANDSHAKE_DONE = 0x1e;
  /**
   * NEW_TICKET: Tern's resumption ticket, server to client in 1-RTT packets only
   * (docs/protocol.md §9.10).
   */
  public static final int NEW_TICKET = 0x3c;

  private FrameType() {}

  /** Whether a frame of this type elicits an ACK (RFC 9002 §2). */
  public static boolean isAckEliciting(int type) {
    return type != PADDING && type != ACK && type != ACK_RECEIVE_TIMESTAMPS
        && type != CONNECTION_CLOSE && type != APPLICATION_CLOSE;
  }
}
