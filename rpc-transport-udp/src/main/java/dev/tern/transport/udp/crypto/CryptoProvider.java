package dev.tern.transport.udp.crypto;

/**
 * The primitives Tern's UDP protocol is built from, behind one small interface so that a
 * platform without them in its JCA (Android before API 33 lacks X25519 and ChaCha20-Poly1305)
 * can use another implementation. Two exist: {@code "jdk"} ({@link JdkCryptoProvider}, the JCA)
 * and {@code "bc"} ({@link BcCryptoProvider}, BouncyCastle's lightweight API, which never goes
 * through the JCA). {@link CryptoProviders} chooses one.
 *
 * <p>Factories may allocate; the objects they return are reused per packet and per message.
 */
public interface CryptoProvider {

  /** The provider's name: {@code "jdk"} or {@code "bc"}. */
  String name();

  /** Why this provider cannot run here, or null if it can. */
  String unavailableReason();

  /** Whether this provider can run here. */
  default boolean isAvailable() {
    return unavailableReason() == null;
  }

  /** A new HMAC-SHA256. */
  Hmac newHmacSha256();

  /** A new SHA-256. */
  Sha256 newSha256();

  /** A new AEAD under {@code key} ({@code algorithm.keyBytes()} long). */
  Aead newAead(AeadAlgorithm algorithm, byte[] key);

  /** A new header-protection mask under {@code hpKey} ({@code algorithm.keyBytes()} long). */
  HeaderMask newHeaderMask(AeadAlgorithm algorithm, byte[] hpKey);

  /** X25519. */
  X25519 x25519();
}
