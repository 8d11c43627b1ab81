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
  /**
   * Where the AEAD writes before the result is copied back into the packet: both providers copy
   * their input when it overlaps their output, so sealing in place would allocate a packet-sized
   * array per packet. Grows to the largest packet seen, then stays.
   */
  private byte[] scratch = new byte[1500];

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

  private byte[] scratch(int len) {
    if (scratch.length < len) {
      scratch = new byte[Math.max(len, 2 * scratch.length)];
    }
    return scratch;
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
    byte[] s = scratch(payloadEnd - payloadOffset + AeadAlgorithm.TAG_BYTES);
    int n = aead.seal(nonce, buf, packetStart, payloadOffset - packetStart, buf, payloadOffset,
        payloadEnd - payloadOffset, s, 0);
    System.arraycopy(s, 0, buf, payloadOffset, n);
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
    byte[] s = scratch(packetEnd - payloadOffset);
    int n = aead.open(nonce, buf, packetStart, payloadOffset - packetStart, buf, payloadOffset,
        packetEnd - payloadOffset, s, 0);
    if (n < 0) {
      return -1;
    }
    System.arraycopy(s, 0, buf, payloadOffset, n);
    return payloadOffset + n;
  }
}
