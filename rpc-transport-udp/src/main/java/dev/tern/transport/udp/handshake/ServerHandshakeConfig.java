package dev.tern.transport.udp.handshake;

import dev.tern.transport.udp.crypto.AeadAlgorithm;
import dev.tern.transport.udp.crypto.CryptoProvider;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * A server's handshake configuration.
 *
 * @param provider the crypto provider
 * @param staticKeys the static keys the server holds (current and next, or current and previous),
 *     each under its own id
 * @param ciphers the AEADs the server accepts
 * @param clientAllowed decides whether a client's static public key may connect; null admits
 *     every client (anonymous clients included)
 * @param tickets resolves resumption tickets; null refuses every resumption
 * @param random the source of ephemeral keys
 */
public record ServerHandshakeConfig(CryptoProvider provider, List<ServerStaticKey> staticKeys,
    Set<AeadAlgorithm> ciphers, Predicate<byte[]> clientAllowed, TicketStore tickets,
    SecureRandom random) {
  /** Checks the configuration. */
  public ServerHandshakeConfig {
    if (provider == null || random == null) {
      throw new IllegalArgumentException("provider and random are required");
    }
    if (staticKeys == null || staticKeys.isEmpty()) {
      throw new IllegalArgumentException("staticKeys must hold at least one key");
    }
    staticKeys = Collections.unmodifiableList(new ArrayList<>(staticKeys));
    if (staticKeys.contains(null)) {
      throw new NullPointerException("staticKeys holds null");
    }
    for (int i = 0; i < staticKeys.size(); i++) {
      for (int j = i + 1; j < staticKeys.size(); j++) {
        if (staticKeys.get(i).keyId() == staticKeys.get(j).keyId()) {
          throw new IllegalArgumentException("staticKeys has key id "
              + staticKeys.get(i).keyId() + " twice");
        }
      }
    }
    if (ciphers == null || ciphers.isEmpty()) {
      throw new IllegalArgumentException("ciphers must name at least one AEAD");
    }
    ciphers.forEach(TernHandshake::cipherCode);
    ciphers = Collections.unmodifiableSet(EnumSet.copyOf(ciphers));
  }

  /** The key with id {@code keyId}, or null. */
  ServerStaticKey key(int keyId) {
    for (ServerStaticKey k : staticKeys) {
      if (k.keyId() == keyId) {
        return k;
      }
    }
    return null;
  }
}
