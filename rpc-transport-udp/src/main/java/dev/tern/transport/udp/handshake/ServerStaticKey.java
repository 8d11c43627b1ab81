package dev.tern.transport.udp.handshake;

/**
 * One of the server's static keys. A server holds its current key and, during a rotation, the
 * next one (or the previous one), each under its own id; clients name the one they pinned.
 *
 * @param keyId the id clients name this key by, 0..255
 * @param privateKey the X25519 private key
 */
public record ServerStaticKey(int keyId, byte[] privateKey) {
  /** Checks the id and the key length. */
  public ServerStaticKey {
    Keys.keyId(keyId);
    privateKey = Keys.key32("privateKey", privateKey);
  }

  @Override
  public byte[] privateKey() {
    return privateKey.clone();
  }

  @Override
  public String toString() {
    return "ServerStaticKey[keyId=" + keyId + "]"; // never the key
  }
}
