package dev.tern.transport.udp.connection;

import dev.tern.transport.udp.crypto.CryptoProviders;
import dev.tern.transport.udp.handshake.PinnedServerKey;
import dev.tern.transport.udp.handshake.ServerStaticKey;
import java.util.HexFormat;

/** A fixed server static key pair for tests: the server holds it, clients pin it. */
public final class TestKeys {
  /** The id the server knows its key by. */
  public static final int KEY_ID = 1;
  /** The server's X25519 private key (fixed, so tests replay). */
  public static final byte[] SERVER_PRIVATE_KEY = HexFormat.of().parseHex(
      "a8abababababababababababababababababababababababababababababab6b");

  private TestKeys() {}

  /** The server's static key. */
  public static ServerStaticKey serverKey() {
    return new ServerStaticKey(KEY_ID, SERVER_PRIVATE_KEY);
  }

  /** The server's public key as a client pins it. */
  public static PinnedServerKey pinned() {
    return new PinnedServerKey(KEY_ID,
        CryptoProviders.auto().x25519().publicKey(SERVER_PRIVATE_KEY));
  }

  /** {@code config} with the test key pinned and held, where it has none of its own. */
  public static ConnectionConfig withKeys(ConnectionConfig config) {
    ConnectionConfig c = config;
    if (c.pinnedServerKeys().isEmpty()) {
      c = c.withPinnedServerKeys(pinned());
    }
    if (c.serverStaticKeys().isEmpty()) {
      c = c.withServerStaticKeys(serverKey());
    }
    return c;
  }
}
