package dev.tern.transport.udp.handshake;

/**
 * A server static key the client trusts, as its configuration pins it (never taken from a
 * plaintext advertisement), with the short id the server knows it by.
 *
 * @param keyId the server's id for this key, 0..255
 * @param publicKey the X25519 public key
 */
public record PinnedServerKey(int keyId, byte[] publicKey) {
  /** Checks the id and the key length. */
  public PinnedServerKey {
    Keys.keyId(keyId);
    publicKey = Keys.key32("publicKey", publicKey);
  }

  @Override
  public byte[] publicKey() {
    return publicKey.clone();
  }
}
