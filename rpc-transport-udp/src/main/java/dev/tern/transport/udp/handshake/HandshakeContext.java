package dev.tern.transport.udp.handshake;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * What both sides know before the first handshake message and must agree on: the protocol
 * version and the connection IDs of the client's first INITIAL. They go into the Noise prologue
 * (Noise revision 34 §6), so a handshake whose packets an attacker rewrote (a downgraded version,
 * swapped connection IDs) fails.
 *
 * @param version the protocol version of the client's first INITIAL
 * @param clientDcid the Destination Connection ID of the client's first INITIAL
 * @param clientScid the Source Connection ID of the client's first INITIAL
 */
public record HandshakeContext(int version, byte[] clientDcid, byte[] clientScid) {
  /** The prologue's leading label. */
  static final byte[] PROLOGUE_LABEL = "tern-udp noise prologue".getBytes(StandardCharsets.US_ASCII);

  /** Checks the connection IDs (0..20 bytes, RFC 9000 §17.2). */
  public HandshakeContext {
    check("clientDcid", clientDcid);
    check("clientScid", clientScid);
    clientDcid = clientDcid.clone();
    clientScid = clientScid.clone();
  }

  private static void check(String name, byte[] cid) {
    if (cid == null || cid.length > 20) {
      throw new IllegalArgumentException(name + " must be 0..20 bytes, got "
          + (cid == null ? "null" : cid.length + " bytes"));
    }
  }

  /**
   * The prologue: label, version (32), DCID length (8), DCID, SCID length (8), SCID, then the
   * ClientHello's header (its bytes before the Noise message), which binds cipher, server key id
   * and ticket id too.
   */
  byte[] prologue(byte[] clientHelloHeader) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    b.write(PROLOGUE_LABEL, 0, PROLOGUE_LABEL.length);
    b.write(version >>> 24);
    b.write(version >>> 16);
    b.write(version >>> 8);
    b.write(version);
    b.write(clientDcid.length);
    b.write(clientDcid, 0, clientDcid.length);
    b.write(clientScid.length);
    b.write(clientScid, 0, clientScid.length);
    b.write(clientHelloHeader, 0, clientHelloHeader.length);
    return b.toByteArray();
  }
}
