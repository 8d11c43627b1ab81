package dev.tern.transport.udp.packet;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;

/**
 * A connection ID (docs/protocol.md §2.3): 0 to 20 bytes, immutable. Created at connection setup
 * only; the per-packet paths compare in place with {@link #matches}.
 */
public final class ConnectionId {
  /** The longest connection ID, in bytes. */
  public static final int MAX_LENGTH = 20;

  /** The length Tern version 1 endpoints issue. */
  public static final int V1_LENGTH = 8;

  /** The empty connection ID. */
  public static final ConnectionId EMPTY = new ConnectionId(new byte[0]);

  private final byte[] bytes;

  private ConnectionId(byte[] bytes) {
    this.bytes = bytes;
  }

  /** A connection ID holding a copy of {@code bytes}. */
  public static ConnectionId of(byte[] bytes) {
    if (bytes.length > MAX_LENGTH) {
      throw new IllegalArgumentException("connection ID length " + bytes.length + " > 20");
    }
    return new ConnectionId(bytes.clone());
  }

  /** A connection ID copied from {@code length} bytes of {@code buf} at absolute {@code offset}. */
  public static ConnectionId read(ByteBuffer buf, int offset, int length) {
    if (length < 0 || length > MAX_LENGTH) {
      throw new IllegalArgumentException("connection ID length " + length);
    }
    byte[] b = new byte[length];
    for (int i = 0; i < length; i++) {
      b[i] = buf.get(offset + i);
    }
    return new ConnectionId(b);
  }

  /** A random client connection ID of {@link #V1_LENGTH} bytes. */
  public static ConnectionId random(Random random) {
    byte[] b = new byte[V1_LENGTH];
    random.nextBytes(b);
    return new ConnectionId(b);
  }

  /**
   * A server connection ID in the QUIC-LB plaintext layout (docs/protocol.md §2.3): config
   * rotation (3 bits) and length self-description (5 bits), a 16-bit server id, a random nonce.
   */
  public static ConnectionId forServer(Random random, int configRotation, int serverId) {
    if (configRotation < 0 || configRotation > 7) {
      throw new IllegalArgumentException("configRotation must be 0..7: " + configRotation);
    }
    if (serverId < 0 || serverId > 0xffff) {
      throw new IllegalArgumentException("serverId must be 0..65535: " + serverId);
    }
    byte[] b = new byte[V1_LENGTH];
    random.nextBytes(b);
    b[0] = (byte) ((configRotation << 5) | (V1_LENGTH - 1));
    b[1] = (byte) (serverId >>> 8);
    b[2] = (byte) serverId;
    return new ConnectionId(b);
  }

  /** The server id a load balancer reads from a server connection ID, or -1 if unroutable. */
  public static int serverIdOf(ByteBuffer buf, int offset, int length) {
    if (length < 3 || ((buf.get(offset) & 0xff) >>> 5) == 7) {
      return -1;
    }
    return ((buf.get(offset + 1) & 0xff) << 8) | (buf.get(offset + 2) & 0xff);
  }

  /** The length in bytes. */
  public int length() {
    return bytes.length;
  }

  /** The byte at {@code index}. */
  public byte byteAt(int index) {
    return bytes[index];
  }

  /** Writes the bytes (without a length prefix) at the buffer's position. */
  public void write(ByteBuffer out) {
    out.put(bytes);
  }

  /** Whether {@code length} bytes of {@code buf} at absolute {@code offset} equal this ID. */
  public boolean matches(ByteBuffer buf, int offset, int length) {
    if (length != bytes.length || offset + length > buf.limit()) {
      return false;
    }
    for (int i = 0; i < length; i++) {
      if (buf.get(offset + i) != bytes[i]) {
        return false;
      }
    }
    return true;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ConnectionId && Arrays.equals(bytes, ((ConnectionId) o).bytes);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bytes);
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder(bytes.length * 2);
    for (byte b : bytes) {
      sb.append(Character.forDigit((b >>> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
    }
    return sb.toString();
  }
}
