package dev.tern.transport.udp.handshake;

/** Checks of key material handed in by configuration. */
final class Keys {
  private Keys() {}

  static byte[] key32(String name, byte[] key) {
    if (key == null || key.length != 32) {
      throw new IllegalArgumentException(name + " must be 32 bytes, got "
          + (key == null ? "null" : key.length + " bytes"));
    }
    return key.clone();
  }

  static int keyId(int keyId) {
    if (keyId < 0 || keyId > 255) {
      throw new IllegalArgumentException("keyId must be 0..255, got " + keyId);
    }
    return keyId;
  }
}
