package dev.tern.transport.udp.handshake;

import dev.tern.transport.udp.crypto.AeadAlgorithm;

/**
 * The wire constants of Tern's handshake messages (docs/udp-crypto.md §5). A ClientHello is
 * {@code type, cipher, server key id, [ticket id length, ticket id], Noise message 1}; a
 * ServerHello is {@code type, Noise message 2}. Each travels in CRYPTO frames of INITIAL packets.
 */
public final class TernHandshake {
  /** ClientHello with Noise_IK: a first connection. */
  public static final int CLIENT_HELLO_IK = 0x01;
  /** ClientHello with Noise_IKpsk2: a resumption with a ticket. */
  public static final int CLIENT_HELLO_IKPSK2 = 0x02;
  /** ServerHello. */
  public static final int SERVER_HELLO = 0x03;
  /** Cipher code of ChaChaPoly (ChaCha20-Poly1305). */
  public static final int CIPHER_CHACHAPOLY = 0x01;
  /** Cipher code of AESGCM (AES-256-GCM). */
  public static final int CIPHER_AESGCM = 0x02;
  /** The longest handshake message, so that one fits a CRYPTO frame of a 1200-byte INITIAL. */
  public static final int MAX_MESSAGE_BYTES = 1100;

  private TernHandshake() {}

  static int cipherCode(AeadAlgorithm a) {
    switch (a) {
      case CHACHA20_POLY1305: return CIPHER_CHACHAPOLY;
      case AES_256_GCM: return CIPHER_AESGCM;
      default: throw new IllegalArgumentException("the handshake cipher must be ChaChaPoly or"
          + " AESGCM (AES-256-GCM), got " + a);
    }
  }

  static AeadAlgorithm cipherOf(int code) throws HandshakeException {
    switch (code) {
      case CIPHER_CHACHAPOLY: return AeadAlgorithm.CHACHA20_POLY1305;
      case CIPHER_AESGCM: return AeadAlgorithm.AES_256_GCM;
      default: throw new HandshakeException(HandshakeError.MALFORMED_MESSAGE,
          "unknown handshake cipher 0x" + Integer.toHexString(code));
    }
  }
}
