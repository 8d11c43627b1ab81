package dev.tern.transport.udp.crypto;

import java.nio.charset.StandardCharsets;

/**
 * The Initial packets' secrets (RFC 9001 §5.2): derived from the client's first Destination
 * Connection ID with a public salt, so they hide nothing from an observer who reads that ID; they
 * stop off-path injection and ossification, while the handshake inside authenticates.
 */
public final class InitialSecrets {
  /** RFC 9001 §5.2: the QUIC version 1 salt. */
  public static final byte[] QUIC_V1_SALT = hex("38762cf7f55934b34d179ae6a4c80cadccbb7f0a");
  /** Tern version 1's salt: 20 random bytes, fixed for the version. */
  public static final byte[] TERN_V1_SALT = hex("7fc54d32ad476b80b01305e6264d8dac2404e7e7");
  /** Tern's client Initial label (RFC 9001 uses "client in"). */
  public static final String TERN_CLIENT_LABEL = "tern client in";
  /** Tern's server Initial label (RFC 9001 uses "server in"). */
  public static final String TERN_SERVER_LABEL = "tern server in";

  /** The client's Initial secret. */
  public final byte[] client;
  /** The server's Initial secret. */
  public final byte[] server;

  private InitialSecrets(byte[] client, byte[] server) {
    this.client = client;
    this.server = server;
  }

  /**
   * RFC 9001 §5.2: initial_secret = HKDF-Extract(salt, dcid); client = HKDF-Expand-Label(
   * initial_secret, clientLabel, "", 32), and likewise the server's.
   */
  public static InitialSecrets derive(Hkdf hkdf, byte[] salt, byte[] dcid, String clientLabel,
      String serverLabel) {
    byte[] initial = hkdf.extract(salt, dcid);
    byte[] none = new byte[0];
    return new InitialSecrets(hkdf.expandLabel(initial, clientLabel, none, Hkdf.HASH_BYTES),
        hkdf.expandLabel(initial, serverLabel, none, Hkdf.HASH_BYTES));
  }

  /** Tern version 1's Initial secrets for {@code dcid}. */
  public static InitialSecrets tern(Hkdf hkdf, byte[] dcid) {
    return derive(hkdf, TERN_V1_SALT, dcid, TERN_CLIENT_LABEL, TERN_SERVER_LABEL);
  }

  static byte[] hex(String s) {
    byte[] b = new byte[s.length() / 2];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
    }
    return b;
  }

  /** The ASCII bytes of a label (for callers building their own contexts). */
  static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
