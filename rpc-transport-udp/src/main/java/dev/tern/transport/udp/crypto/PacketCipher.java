package dev.tern.transport.udp.crypto;

/**
 * One direction's AEAD key and IV of one key generation (RFC 9001 §5.1), sealing and opening
 * packets in place. Allocation-free per packet apart from what the provider's cipher does.
 * Not thread-safe.
 */
public final class PacketCipher {
  private final Aead aead;
  private final byte[] iv;
  private final byte[] nonce = new byte[AeadAlgorithm.NONCE_BYTES];
  private final byte[] secret;

  /** Derives key and IV from {@code secret} with {@code labels} (RFC 9001 §5.1). */
  public PacketCipher(CryptoProvider provider, Hkdf hkdf, AeadAlgorithm algorithm,
      KeyLabels labels, byte[] secret) {
    byte[] none = new byte[0];
    this.secret = secret.clone();
    this.aead = provider.newAead(algorithm,
        hkdf.expandLabel(secret, labels.key(), none, algorithm.keyBytes()));
    this.iv = hkdf.expandLabel(secret, labels.iv(), none, AeadAlgorithm.NONCE_BYTES);
  }

  /** The secret these keys came from. */
  byte[] secret() {
    return secret;
  }

  /** The AEAD's algorithm. */
  public AeadAlgorithm algorithm() {
    return aead.algorithm();
  }

  /** RFC 9001 §5.3: the 62-bit packet number, left-padded to the IV's length, XOR the IV. */
  private void nonce(long packetNumber) {
    System.arraycopy(iv, 0, nonce, 0, iv.length);
    for (int i = 0; i < 8; i++) {
      nonce[nonce.length - 1 - i] ^= (byte) (packetNumber >>> (8 * i));
    }
  }

  /**
   * Encrypts the payload {@code [payloadOffset, payloadEnd)} in place with the header
   * {@code [packetStart, payloadOffset)} as associated data (RFC 9001 §5.3) and appends the tag.
   *
   * @return the end of the sealed packet
   */
  public int seal(byte[] buf, int packetStart, int payloadOffset, int payloadEnd,
      long packetNumber) {
    nonce(packetNumber);
    int n = aead.seal(nonce, buf, packetStart, payloadOffset - packetStart, buf, payloadOffset,
        payloadEnd - payloadOffset, buf, payloadOffset);
    return payloadOffset + n;
  }

  /**
   * Opens {@code [payloadOffset, packetEnd)} in place.
   *
   * @return the end of the plaintext payload, or -1 if the packet is not authentic
   */
  public int open(byte[] buf, int packetStart, int payloadOffset, int packetEnd,
      long packetNumber) {
    nonce(packetNumber);
    int n = aead.open(nonce, buf, packetStart, payloadOffset - packetStart, buf, payloadOffset,
        packetEnd - payloadOffset, buf, payloadOffset);
    return n < 0 ? -1 : payloadOffset + n;
  }
}
