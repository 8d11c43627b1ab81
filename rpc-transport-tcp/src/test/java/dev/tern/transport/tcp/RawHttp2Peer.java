package dev.tern.transport.tcp;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A bare HTTP/2 endpoint on a plain socket (RFC 9113 §3.4: prior knowledge, then frames), for tests
 * that watch what a Tern peer sends on a connection no gRPC peer would leave that quiet: as a client
 * ({@link #connect}) or a server ({@link #accept}) it opens no stream, acknowledges the peer's
 * SETTINGS, and answers the peer's PINGs only when told to.
 */
final class RawHttp2Peer implements AutoCloseable {
  static final int SETTINGS = 0x4;
  static final int PING = 0x6;
  static final int GOAWAY = 0x7;
  static final int FLAG_ACK = 0x1;
  /** RFC 9113 §7: ENHANCE_YOUR_CALM. */
  static final int ENHANCE_YOUR_CALM = 0xb;
  private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

  /** One frame as read (RFC 9113 §4.1). */
  record Frame(int type, int flags, int stream, byte[] payload) {
    boolean ack() {
      return (flags & FLAG_ACK) != 0;
    }

    @Override
    public String toString() {
      return "Frame{type=" + type + ", flags=" + flags + ", stream=" + stream + ", length=" + payload.length + '}';
    }

    /** A GOAWAY's error code (RFC 9113 §6.8). */
    int goAwayError() {
      return ByteBuffer.wrap(payload, 4, 4).getInt();
    }

    /** A GOAWAY's debug data, as text. */
    String goAwayDebug() {
      return new String(payload, 8, payload.length - 8, StandardCharsets.UTF_8);
    }
  }

  private final Socket socket;
  private final DataInputStream in;
  private final OutputStream out;
  private final boolean answerPings;

  private RawHttp2Peer(Socket socket, boolean answerPings) throws IOException {
    this.socket = socket;
    this.in = new DataInputStream(socket.getInputStream());
    this.out = socket.getOutputStream();
    this.answerPings = answerPings;
  }

  /**
   * Reads a client's preface on {@code accepted} and sends empty SETTINGS; reads time out after
   * {@code readTimeoutMillis}.
   */
  static RawHttp2Peer accept(Socket accepted, boolean answerPings, int readTimeoutMillis) throws IOException {
    accepted.setSoTimeout(readTimeoutMillis);
    RawHttp2Peer p = new RawHttp2Peer(accepted, answerPings);
    byte[] preface = new byte[PREFACE.length];
    p.in.readFully(preface);
    if (!java.util.Arrays.equals(preface, PREFACE)) {
      throw new IOException("not an HTTP/2 client preface: " + new String(preface, StandardCharsets.US_ASCII));
    }
    p.write(SETTINGS, 0, new byte[0]);
    return p;
  }

  /** Connects, sends the preface and empty SETTINGS; reads time out after {@code readTimeoutMillis}. */
  static RawHttp2Peer connect(int port, boolean answerPings, int readTimeoutMillis) throws IOException {
    Socket s = new Socket("127.0.0.1", port);
    s.setSoTimeout(readTimeoutMillis);
    RawHttp2Peer c = new RawHttp2Peer(s, answerPings);
    c.out.write(PREFACE);
    c.write(SETTINGS, 0, new byte[0]);
    return c;
  }

  synchronized void write(int type, int flags, byte[] payload) throws IOException {
    byte[] header = new byte[9];
    header[0] = (byte) (payload.length >>> 16);
    header[1] = (byte) (payload.length >>> 8);
    header[2] = (byte) payload.length;
    header[3] = (byte) type;
    header[4] = (byte) flags;
    out.write(header);
    out.write(payload);
    out.flush();
  }

  /** Sends a PING (not an ACK) whose 8-byte payload is {@code id}. */
  void ping(long id) throws IOException {
    write(PING, 0, ByteBuffer.allocate(8).putLong(id).array());
  }

  /**
   * The next frame the peer sends, having acknowledged it if it is SETTINGS (and a PING, if this
   * client answers pings); null once the server has closed the connection.
   */
  Frame next() throws IOException {
    byte[] header = new byte[9];
    try {
      in.readFully(header);
    } catch (EOFException | SocketException closed) {
      return null;
    }
    int length = (header[0] & 0xff) << 16 | (header[1] & 0xff) << 8 | header[2] & 0xff;
    byte[] payload = new byte[length];
    try {
      in.readFully(payload);
    } catch (EOFException | SocketException closed) {
      return null;
    }
    Frame f = new Frame(header[3] & 0xff, header[4] & 0xff, ByteBuffer.wrap(header, 5, 4).getInt() & 0x7fffffff,
        payload);
    if (f.type() == SETTINGS && !f.ack()) {
      write(SETTINGS, FLAG_ACK, new byte[0]);
    } else if (f.type() == PING && !f.ack() && answerPings) {
      write(PING, FLAG_ACK, payload);
    }
    return f;
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
