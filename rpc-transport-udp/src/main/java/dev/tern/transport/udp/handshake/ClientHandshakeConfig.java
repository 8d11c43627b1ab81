package dev.tern.transport.udp.handshake;

import dev.tern.transport.udp.crypto.AeadAlgorithm;
import dev.tern.transport.udp.crypto.CryptoProvider;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A client's handshake configuration.
 *
 * @param provider the crypto provider
 * @param cipher the AEAD to propose: ChaCha20-Poly1305 or AES-256-GCM
 * @param pinnedKeys the server static keys the client trusts, most preferred first (during a
 *     rotation: the new key and the old one)
 * @param clientStaticKey the client's X25519 private key if it authenticates itself, or null for
 *     an anonymous client, which then uses a fresh key per connection
 * @param random the source of ephemeral keys
 */
public record ClientHandshakeConfig(CryptoProvider provider, AeadAlgorithm cipher,
    List<PinnedServerKey> pinnedKeys, byte[] clientStaticKey, SecureRandom random) {
  /** Checks the configuration. */
  public ClientHandshakeConfig {
    if (provider == null || random == null) {
      throw new IllegalArgumentException("provider and random are required");
    }
    TernHandshake.cipherCode(cipher);
    if (pinnedKeys == null || pinnedKeys.isEmpty()) {
      throw new IllegalArgumentException("pinnedKeys must name at least one server key");
    }
    pinnedKeys = Collections.unmodifiableList(new ArrayList<>(pinnedKeys));
    if (pinnedKeys.contains(null)) {
      throw new NullPointerException("pinnedKeys holds null");
    }
    clientStaticKey = clientStaticKey == null ? null : Keys.key32("clientStaticKey",
        clientStaticKey);
  }

  @Override
  public byte[] clientStaticKey() {
    return clientStaticKey == null ? null : clientStaticKey.clone();
  }

  /** The pinned key with id {@code keyId}, or null. */
  public PinnedServerKey pinned(int keyId) {
    for (PinnedServerKey k : pinnedKeys) {
      if (k.keyId() == keyId) {
        return k;
      }
    }
    return null;
  }

  @Override
  public String toString() {
    return "ClientHandshakeConfig[" + provider.name() + ", " + cipher + ", " + pinnedKeys.size()
        + " pinned keys, " + (clientStaticKey == null ? "anonymous" : "with a client key") + "]";
  }
}
