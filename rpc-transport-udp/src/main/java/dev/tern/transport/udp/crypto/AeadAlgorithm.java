package dev.tern.transport.udp.crypto;

/**
 * The AEADs Tern protects packets and handshake messages with, and their usage limits.
 *
 * <p>The limits are RFC 9001 §6.6's: a sender counts packets sealed with one key and must update
 * keys before the confidentiality limit; a receiver counts packets that fail authentication over
 * the whole connection and closes it at the integrity limit.
 */
public enum AeadAlgorithm {
  /**
   * AEAD_AES_128_GCM (RFC 5116 §5.1). RFC 9001 §6.6: confidentiality limit 2^23 packets,
   * integrity limit 2^52 forged packets. Header protection is AES-128-ECB (RFC 9001 §5.4.3).
   */
  AES_128_GCM(null, 16, 1L << 23, 1L << 52),
  /**
   * AEAD_AES_256_GCM (RFC 5116 §5.2), Noise's "AESGCM" (Noise rev. 34 §12.4). RFC 9001 §6.6: the
   * same limits as AES-128-GCM. Header protection is AES-256-ECB.
   */
  AES_256_GCM("AESGCM", 32, 1L << 23, 1L << 52),
  /**
   * AEAD_CHACHA20_POLY1305 (RFC 8439 §2.8). RFC 9001 §6.6: the confidentiality limit exceeds the
   * 2^62 possible packets; integrity limit 2^36 forged packets. Header protection is ChaCha20
   * (RFC 9001 §5.4.4).
   */
  CHACHA20_POLY1305("ChaChaPoly", 32, 1L << 62, 1L << 36);

  /** Authentication tag length of both AEADs (RFC 5116 §5.1, RFC 8439 §2.8). */
  public static final int TAG_BYTES = 16;
  /** Nonce length of both AEADs (RFC 5116 §5.1, RFC 8439 §2.8). */
  public static final int NONCE_BYTES = 12;

  private final String noiseName;
  private final int keyBytes;
  private final long confidentialityLimitPackets;
  private final long integrityLimitPackets;

  AeadAlgorithm(String noiseName, int keyBytes, long confidentialityLimitPackets,
      long integrityLimitPackets) {
    this.noiseName = noiseName;
    this.keyBytes = keyBytes;
    this.confidentialityLimitPackets = confidentialityLimitPackets;
    this.integrityLimitPackets = integrityLimitPackets;
  }

  /**
   * The cipher's name in a Noise protocol name (Noise rev. 34 §12.3, §12.4), or null for
   * AES-128-GCM, which Noise does not define.
   */
  public String noiseName() {
    return noiseName;
  }

  /** Whether this is an AES-GCM (header protection with AES-ECB, RFC 9001 §5.4.3). */
  public boolean isAes() {
    return this != CHACHA20_POLY1305;
  }

  /** Key length, also the header-protection key length (RFC 9001 §5.4.3, §5.4.4). */
  public int keyBytes() {
    return keyBytes;
  }

  /** Most packets one key may seal (RFC 9001 §6.6). */
  public long confidentialityLimitPackets() {
    return confidentialityLimitPackets;
  }

  /** Most packets that may fail authentication on one connection (RFC 9001 §6.6). */
  public long integrityLimitPackets() {
    return integrityLimitPackets;
  }

  /** The algorithm whose Noise name is {@code name} ("AESGCM" or "ChaChaPoly"). */
  public static AeadAlgorithm ofNoiseName(String name) {
    for (AeadAlgorithm a : values()) {
      if (name.equals(a.noiseName)) {
        return a;
      }
    }
    throw new IllegalArgumentException("unknown Noise cipher name: " + name
        + " (expected AESGCM or ChaChaPoly)");
  }
}
