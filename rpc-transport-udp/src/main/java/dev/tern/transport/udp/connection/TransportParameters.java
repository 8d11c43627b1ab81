package dev.tern.transport.udp.connection;

import dev.tern.transport.udp.packet.ConnectionId;
import dev.tern.transport.udp.packet.VarInt;
import java.nio.Buffer;
import java.nio.ByteBuffer;

/**
 * The handshake message of version 1 (docs/protocol.md §7): a message type and transport
 * parameters. Encoded and decoded once per connection, so allocation here is not on a hot path.
 */
public final class TransportParameters {
  /** ClientHello message type. */
  public static final int CLIENT_HELLO = 1;
  /** ServerHello message type. */
  public static final int SERVER_HELLO = 2;
  /** RFC 9000 §18.2: ack_delay_exponent values above 20 are invalid. */
  public static final int MAX_ACK_DELAY_EXPONENT = 20;
  /** RFC 9000 §18.2: max_ack_delay values of 2^14 ms or more are invalid. */
  public static final long MAX_ACK_DELAY_LIMIT_MS = 1L << 14;
  /** RFC 9000 §4.6: a stream count above 2^60 cannot be expressed as a stream ID. */
  public static final long MAX_STREAM_COUNT = 1L << 60;
  /** Longest handshake message. */
  public static final int MAX_MESSAGE_BYTES = 1100;

  static final int ORIGINAL_DESTINATION_CONNECTION_ID = 0x00;
  static final int MAX_IDLE_TIMEOUT = 0x01;
  static final int STATELESS_RESET_TOKEN = 0x02;
  static final int MAX_UDP_PAYLOAD_SIZE = 0x03;
  static final int INITIAL_MAX_DATA = 0x04;
  static final int INITIAL_MAX_STREAM_DATA = 0x05;
  static final int INITIAL_MAX_STREAMS = 0x08;
  static final int ACK_DELAY_EXPONENT = 0x0a;
  static final int MAX_ACK_DELAY = 0x0b;
  static final int INITIAL_SOURCE_CONNECTION_ID = 0x0f;
  static final int RETRY_SOURCE_CONNECTION_ID = 0x10;
  static final int VERSION_INFORMATION = 0x11;
  static final int TERN_RPC_VERSIONS = 0x20;
  static final int RECEIVE_TIMESTAMPS = 0x21;
  static final int TERN_RESET_PROOF_KEY = 0x22;
  static final int TERN_TICKET_AGE = 0x2a;
  static final int TERN_EARLY_DATA = 0x2b;
  /** tern_early_data: the server accepted the client's 0-RTT packets. */
  public static final int EARLY_DATA_ACCEPTED = 1;
  /** tern_early_data: the server rejected them (the client sends their data again in 1-RTT). */
  public static final int EARLY_DATA_REJECTED = 2;

  /** Message type: {@link #CLIENT_HELLO} or {@link #SERVER_HELLO}. */
  public int messageType;
  /** max_idle_timeout, ms. */
  public long maxIdleTimeoutMs = 30_000;
  /** max_udp_payload_size. */
  public long maxUdpPayloadSize = 1350;
  /** initial_max_data. */
  public long initialMaxData = 4 << 20;
  /** initial_max_stream_data. */
  public long initialMaxStreamData = 1 << 20;
  /** initial_max_streams. */
  public long initialMaxStreams = 100;
  /**
   * ack_delay_exponent as the peer sent it (default 3); version 1 fixes the exponent at 3
   * (docs/protocol.md §7), so the value is only validated.
   */
  public long ackDelayExponent = 3;
  /** max_ack_delay, ms. */
  public long maxAckDelayMs = 25;
  /** initial_source_connection_id; required. */
  public ConnectionId initialSourceConnectionId;
  /**
   * original_destination_connection_id (RFC 9000 §7.3, §18.2): a server's, the Destination
   * Connection ID of the client's first INITIAL; null if absent.
   */
  public ConnectionId originalDestinationConnectionId;
  /**
   * retry_source_connection_id (RFC 9000 §7.3): a server's, the Source Connection ID of the Retry
   * it sent; null if it sent none.
   */
  public ConnectionId retrySourceConnectionId;
  /** version_information: the chosen version (0 if absent). */
  public int chosenVersion;
  /** version_information: the version the client attempted first. */
  public int attemptedVersion;
  /** tern_rpc_versions. */
  public long[] rpcVersions = new long[0];
  /** receive_timestamps. */
  public boolean wantsReceiveTimestamps;
  /** stateless_reset_token (RFC 9000 §18.2): a server's, 16 bytes; null if absent. */
  public byte[] statelessResetToken;
  /**
   * tern_reset_proof_key: a server's key for the proof of uptime its stateless resets carry
   * ({@link StatelessReset}), 16 bytes; null if absent.
   */
  public byte[] resetProofKey;
  /**
   * tern_ticket_age: a resuming client's age of its ticket, ms, as it sees it (RFC 8446
   * §4.2.11's obfuscated_ticket_age, in the clear inside the encrypted ClientHello); -1 if
   * absent.
   */
  public long ticketAgeMillis = -1;
  /**
   * tern_early_data: the server's answer to a resuming client, {@link #EARLY_DATA_ACCEPTED} or
   * {@link #EARLY_DATA_REJECTED}; 0 if absent (not a resumption: no early data).
   */
  public int earlyData;

  /** Writes the message. */
  public void encode(ByteBuffer out) {
    out.put((byte) messageType);
    putBytesParam(out, INITIAL_SOURCE_CONNECTION_ID, initialSourceConnectionId);
    if (originalDestinationConnectionId != null) {
      putBytesParam(out, ORIGINAL_DESTINATION_CONNECTION_ID, originalDestinationConnectionId);
    }
    if (retrySourceConnectionId != null) {
      putBytesParam(out, RETRY_SOURCE_CONNECTION_ID, retrySourceConnectionId);
    }
    if (rpcVersions.length > 0) {
      int len = VarInt.size(rpcVersions.length);
      for (long v : rpcVersions) {
        len += VarInt.size(v);
      }
      VarInt.write(out, TERN_RPC_VERSIONS);
      VarInt.write(out, len);
      VarInt.write(out, rpcVersions.length);
      for (long v : rpcVersions) {
        VarInt.write(out, v);
      }
    }
    putVarParam(out, INITIAL_MAX_DATA, initialMaxData);
    putVarParam(out, MAX_IDLE_TIMEOUT, maxIdleTimeoutMs);
    putVarParam(out, MAX_UDP_PAYLOAD_SIZE, maxUdpPayloadSize);
    putVarParam(out, INITIAL_MAX_STREAM_DATA, initialMaxStreamData);
    putVarParam(out, INITIAL_MAX_STREAMS, initialMaxStreams);
    putVarParam(out, MAX_ACK_DELAY, maxAckDelayMs);
    if (wantsReceiveTimestamps) {
      putVarParam(out, RECEIVE_TIMESTAMPS, 1);
    }
    if (statelessResetToken != null) {
      VarInt.write(out, STATELESS_RESET_TOKEN);
      VarInt.write(out, statelessResetToken.length);
      out.put(statelessResetToken);
    }
    if (resetProofKey != null) {
      VarInt.write(out, TERN_RESET_PROOF_KEY);
      VarInt.write(out, resetProofKey.length);
      out.put(resetProofKey);
    }
    if (ticketAgeMillis >= 0) {
      putVarParam(out, TERN_TICKET_AGE, ticketAgeMillis);
    }
    if (earlyData != 0) {
      putVarParam(out, TERN_EARLY_DATA, earlyData);
    }
    if (chosenVersion != 0) {
      VarInt.write(out, VERSION_INFORMATION);
      VarInt.write(out, 8);
      out.putInt(chosenVersion);
      out.putInt(attemptedVersion);
    }
  }

  private static void putVarParam(ByteBuffer out, int id, long value) {
    VarInt.write(out, id);
    VarInt.write(out, VarInt.size(value));
    VarInt.write(out, value);
  }

  private static void putBytesParam(ByteBuffer out, int id, ConnectionId cid) {
    VarInt.write(out, id);
    VarInt.write(out, cid.length());
    cid.write(out);
  }

  /**
   * Parses a message occupying the buffer from its position to its limit.
   *
   * @return null if valid, else a description of what is wrong (a TRANSPORT_PARAMETER_ERROR)
   */
  public String decode(ByteBuffer in) {
    if (!in.hasRemaining()) {
      return "empty handshake message";
    }
    messageType = in.get() & 0xff;
    if (messageType != CLIENT_HELLO && messageType != SERVER_HELLO) {
      return "unknown handshake message type " + messageType;
    }
    long seen = 0; // bit per known id below 64
    while (in.hasRemaining()) {
      long id = VarInt.read(in);
      long len = VarInt.read(in);
      if (id < 0 || len < 0 || len > in.remaining()) {
        return "truncated transport parameter";
      }
      int end = in.position() + (int) len;
      if (id < 64) {
        if ((seen & (1L << id)) != 0) {
          return "duplicate transport parameter 0x" + Long.toHexString(id);
        }
        seen |= 1L << id;
      }
      String err = decodeOne((int) Math.min(id, Integer.MAX_VALUE), in, end);
      if (err != null) {
        return err;
      }
      ((Buffer) in).position(end);
    }
    if (initialSourceConnectionId == null) {
      return "missing initial_source_connection_id";
    }
    if (maxUdpPayloadSize < 1200) {
      return "max_udp_payload_size below 1200: " + maxUdpPayloadSize;
    }
    if (maxAckDelayMs >= MAX_ACK_DELAY_LIMIT_MS) {
      return "max_ack_delay must be below 2^14 ms (RFC 9000 §18.2): " + maxAckDelayMs;
    }
    if (ackDelayExponent > MAX_ACK_DELAY_EXPONENT) {
      return "ack_delay_exponent must be at most 20 (RFC 9000 §18.2): " + ackDelayExponent;
    }
    if (initialMaxStreams > MAX_STREAM_COUNT) {
      return "initial_max_streams_bidi must be at most 2^60 (RFC 9000 §18.2): "
          + initialMaxStreams;
    }
    return null;
  }

  private String decodeOne(int id, ByteBuffer in, int end) {
    switch (id) {
      case INITIAL_SOURCE_CONNECTION_ID:
        if (end - in.position() > ConnectionId.MAX_LENGTH) {
          return "connection ID too long";
        }
        initialSourceConnectionId = ConnectionId.read(in, in.position(), end - in.position());
        return null;
      case ORIGINAL_DESTINATION_CONNECTION_ID:
      case RETRY_SOURCE_CONNECTION_ID: {
        // RFC 9000 §18.2: only a server sends them.
        if (messageType != SERVER_HELLO) {
          return "transport parameter 0x" + Integer.toHexString(id) + " from a client";
        }
        if (end - in.position() > ConnectionId.MAX_LENGTH) {
          return "connection ID too long";
        }
        ConnectionId cid = ConnectionId.read(in, in.position(), end - in.position());
        if (id == ORIGINAL_DESTINATION_CONNECTION_ID) {
          originalDestinationConnectionId = cid;
        } else {
          retrySourceConnectionId = cid;
        }
        return null;
      }
      case TERN_RPC_VERSIONS: {
        long n = VarInt.read(in);
        if (n < 0 || n > end - in.position()) {
          return "bad tern_rpc_versions";
        }
        long[] v = new long[(int) n];
        for (int i = 0; i < n; i++) {
          v[i] = VarInt.read(in);
          if (v[i] < 0 || in.position() > end) {
            return "bad tern_rpc_versions";
          }
        }
        rpcVersions = v;
        return null;
      }
      case STATELESS_RESET_TOKEN:
        // RFC 9000 §18.2: 16 bytes, and only a server sends it.
        if (messageType != SERVER_HELLO) {
          return "stateless_reset_token from a client";
        }
        if (end - in.position() != StatelessReset.TOKEN_BYTES) {
          return "bad stateless_reset_token";
        }
        statelessResetToken = new byte[StatelessReset.TOKEN_BYTES];
        in.get(statelessResetToken);
        return null;
      case TERN_RESET_PROOF_KEY:
        if (messageType != SERVER_HELLO) {
          return "tern_reset_proof_key from a client";
        }
        if (end - in.position() != StatelessReset.PROOF_KEY_BYTES) {
          return "bad tern_reset_proof_key";
        }
        resetProofKey = new byte[StatelessReset.PROOF_KEY_BYTES];
        in.get(resetProofKey);
        return null;
      case VERSION_INFORMATION:
        if (end - in.position() != 8) {
          return "bad version_information";
        }
        chosenVersion = in.getInt();
        attemptedVersion = in.getInt();
        // RFC 9368 §3: a Chosen Version of 0 is a parsing failure (0 is never a version; here it
        // also means "absent", so accepting it would not survive re-encoding).
        if (chosenVersion == 0) {
          return "bad version_information: chosen version 0";
        }
        return null;
      case TERN_TICKET_AGE:
      case TERN_EARLY_DATA: {
        long v = VarInt.read(in);
        if (v < 0 || in.position() != end) {
          return "bad value for transport parameter 0x" + Integer.toHexString(id);
        }
        if ((id == TERN_TICKET_AGE) != (messageType == CLIENT_HELLO)) {
          return (id == TERN_TICKET_AGE ? "tern_ticket_age from a server"
              : "tern_early_data from a client");
        }
        if (id == TERN_EARLY_DATA) {
          if (v != EARLY_DATA_ACCEPTED && v != EARLY_DATA_REJECTED) {
            return "bad tern_early_data " + v;
          }
          earlyData = (int) v;
        } else {
          ticketAgeMillis = v;
        }
        return null;
      }
      case MAX_IDLE_TIMEOUT:
      case MAX_UDP_PAYLOAD_SIZE:
      case INITIAL_MAX_DATA:
      case INITIAL_MAX_STREAM_DATA:
      case INITIAL_MAX_STREAMS:
      case MAX_ACK_DELAY:
      case ACK_DELAY_EXPONENT:
      case RECEIVE_TIMESTAMPS: {
        long v = VarInt.read(in);
        if (v < 0 || in.position() != end) {
          return "bad value for transport parameter 0x" + Integer.toHexString(id);
        }
        setVar(id, v);
        return null;
      }
      default:
        return null; // unknown parameters are ignored
    }
  }

  private void setVar(int id, long v) {
    switch (id) {
      case MAX_IDLE_TIMEOUT: maxIdleTimeoutMs = v; break;
      case MAX_UDP_PAYLOAD_SIZE: maxUdpPayloadSize = v; break;
      case INITIAL_MAX_DATA: initialMaxData = v; break;
      case INITIAL_MAX_STREAM_DATA: initialMaxStreamData = v; break;
      case INITIAL_MAX_STREAMS: initialMaxStreams = v; break;
      case MAX_ACK_DELAY: maxAckDelayMs = v; break;
      case RECEIVE_TIMESTAMPS: wantsReceiveTimestamps = v != 0; break;
      case ACK_DELAY_EXPONENT: ackDelayExponent = v; break;
      default: break;
    }
  }
}
