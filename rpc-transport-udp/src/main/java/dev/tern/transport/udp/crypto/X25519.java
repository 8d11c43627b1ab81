package dev.tern.transport.udp.crypto;

import java.security.SecureRandom;

/**
 * X25519 (RFC 7748 §5). Keys are the RFC's 32-byte little-endian strings; private keys are
 * clamped by the function itself, so any 32 random bytes are a private key. Thread-safe.
 */
public interface X25519 {

  /** Length of private keys, public keys and shared secrets. */
  int KEY_BYTES = 32;

  /** A new private key: 32 bytes from {@code random}. */
  default byte[] generatePrivateKey(SecureRandom random) {
    byte[] k = new byte[KEY_BYTES];
    random.nextBytes(k);
    return k;
  }

  /** The public key of {@code privateKey}: X25519(k, 9). */
  byte[] publicKey(byte[] privateKey);

  /**
   * X25519(privateKey, peerPublicKey) into {@code out}.
   *
   * @return false if the result is all zeros (a low-order peer key, RFC 7748 §6.1); {@code out}
   *     must then not be used
   */
  boolean agree(byte[] privateKey, byte[] peerPublicKey, byte[] out);
}
