package dev.tern.transport.udp.crypto;

/**
 * One direction's header protection (RFC 9001 §5.4): masks the low bits of the first byte (four
 * for a long header, five for a short one, which covers the key-phase bit) and the packet-number
 * bytes with a mask computed from a sample of the ciphertext. Not thread-safe.
 */
public final class HeaderProtector {
  /** RFC 9001 §5.4.2: the sample starts 4 bytes after the packet number's first byte. */
  public static final int SAMPLE_OFFSET = 4;

  private final HeaderMask mask;
  private final byte[] m = new byte[HeaderMask.MASK_BYTES];

  /** Header protection under {@code hpKey}. */
  public HeaderProtector(CryptoProvider provider, AeadAlgorithm algorithm, byte[] hpKey) {
    this.mask = provider.newHeaderMask(algorithm, hpKey);
  }

  /** The mask for the sample taken at {@code pnOffset + 4} (for tests). */
  byte[] maskFor(byte[] buf, int pnOffset) {
    mask.mask(buf, pnOffset + SAMPLE_OFFSET, m);
    return m.clone();
  }

  private static int firstByteMask(byte first) {
    // RFC 9001 §5.4.1: 4 bits of a long header, 5 of a short one.
    return (first & 0x80) != 0 ? 0x0f : 0x1f;
  }

  /**
   * Applies protection to a sealed packet whose unprotected first byte is at
   * {@code buf[packetStart]} and whose packet number starts at {@code pnOffset}.
   */
  public void apply(byte[] buf, int packetStart, int pnOffset) {
    mask.mask(buf, pnOffset + SAMPLE_OFFSET, m);
    int pnLength = (buf[packetStart] & 0x03) + 1; // read before masking
    buf[packetStart] ^= (byte) (m[0] & firstByteMask(buf[packetStart]));
    for (int i = 0; i < pnLength; i++) {
      buf[pnOffset + i] ^= m[1 + i];
    }
  }

  /**
   * Removes protection in place, before the packet number is read.
   *
   * @return the packet number's length (1..4), or -1 if the packet is too short to sample (RFC
   *     9001 §5.4.2: the receiver drops it); nothing is changed then
   */
  public int remove(byte[] buf, int packetStart, int pnOffset, int packetEnd) {
    if (pnOffset < packetStart + 1
        || pnOffset + SAMPLE_OFFSET + HeaderMask.SAMPLE_BYTES > packetEnd) {
      return -1;
    }
    mask.mask(buf, pnOffset + SAMPLE_OFFSET, m);
    buf[packetStart] ^= (byte) (m[0] & firstByteMask(buf[packetStart]));
    int pnLength = (buf[packetStart] & 0x03) + 1; // read after unmasking
    for (int i = 0; i < pnLength; i++) {
      buf[pnOffset + i] ^= m[1 + i];
    }
    return pnLength;
  }
}
