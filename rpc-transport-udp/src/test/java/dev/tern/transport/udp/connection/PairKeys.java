package dev.tern.transport.udp.connection;

import dev.tern.transport.udp.packet.PacketProtection;

/**
 * The 1-RTT keys of both sides of a connection whose server side has finished its handshake,
 * derived anew from that handshake's secrets (RFC 9001 §5.1), so that a test sitting on the wire
 * between a real client and server can open what one side sends and seal it again, leaving the
 * connections' own keys untouched. Key generation 0 only (RFC 9001 §6: after a key update a
 * packet no longer opens with them).
 */
public final class PairKeys {
  private PairKeys() {}

  /**
   * The 1-RTT keys of one side of {@code server}'s connection: {@code client} true gives the
   * client's (seals what the client sends, opens what the server sends), false the server's.
   *
   * @return the keys, or null if {@code server} is not a server connection of the encrypted
   *     version whose handshake has finished
   */
  public static PacketProtection oneRttKeys(Connection server, boolean client) {
    if (server.isClient || server.keys.crypto == null || !server.keys.crypto.isFinished()) {
      return null;
    }
    return server.keys.crypto.secrets().oneRttKeys(client);
  }
}
