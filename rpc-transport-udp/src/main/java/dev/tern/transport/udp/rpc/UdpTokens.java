package dev.tern.transport.udp.rpc;

import dev.tern.rpc.spi.SessionStore;
import dev.tern.rpc.spi.SessionStores;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.transport.udp.connection.ConnectionConfig;
import java.util.concurrent.TimeUnit;

/**
 * The client's address-validation tokens (docs/protocol.md §9.8) in the channel's
 * {@link SessionStore}: each server's NEW_TOKEN token is kept under the authority the client
 * connects to, kind {@value #KIND}, and the newest one goes, once, into the next connection's
 * first INITIAL (RFC 9000 §8.1.3: a token is not reused, so connections are not linked by it).
 */
final class UdpTokens {
  /** The session store's kind for tokens. */
  static final String KIND = "udp.token";
  /**
   * How long a token is kept: the server's default lifetime for them (a server with a shorter
   * one ignores an old token, which costs nothing but the 3x limit).
   */
  static final long KEEP_MILLIS = TimeUnit.DAYS.toMillis(1);

  private UdpTokens() {}

  private static SessionStore store(TransportOptions options) {
    SessionStore s = options.get(TransportOptions.SESSION_STORE);
    return s != null ? s : SessionStores.process();
  }

  /** {@code config} with the newest stored token for {@code server}, taken from the store. */
  static ConnectionConfig withStoredToken(ConnectionConfig config, TransportOptions options,
      String server) {
    byte[] token = store(options).take(server, KIND, System.currentTimeMillis());
    return token == null ? config : config.withAddressToken(token);
  }

  /** Keeps a token {@code server} sent. */
  static void remember(TransportOptions options, String server, byte[] token) {
    store(options).add(server, KIND, token, System.currentTimeMillis() + KEEP_MILLIS);
  }
}
