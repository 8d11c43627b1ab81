package dev.tern.transport.udp.crypto;

import java.nio.Buffer;
import java.nio.ByteBuffer;

/**
 * The keys of an epoch without key update: Initial, 0-RTT and Handshake (RFC 9001 §6: only
 * 1-RTT keys are updated). Either direction may be absent (0-RTT is one-way); using an absent
 * direction is an {@link IllegalStateException}.
 */
public final class EpochPacketKeys implements PacketKeys {
  private final PacketCipher read;
  private final PacketCipher write;
  private final HeaderProtector readHp;
  private final HeaderProtector writeHp;
  private final long confidentialityLimit;
  private final long integrityLimit;
  private long sealed;
  private long failedOpens;

  private EpochPacketKeys(PacketCipher read, HeaderProtector readHp, PacketCipher write,
      HeaderProtector writeHp, AeadAlgorithm algorithm) {
    this.read = read;
    this.readHp = readHp;
    this.write = write;
    this.writeHp = writeHp;
    this.confidentialityLimit = algorithm.confidentialityLimitPackets();
    this.integrityLimit = algorithm.integrityLimitPackets();
  }

  /**
   * Keys from traffic secrets (RFC 9001 §5.1): key, IV and header-protection key of each
   * direction are HKDF-Expand-Label(secret, label, "", length) with {@code labels}.
   *
   * @param readSecret the peer's secret, or null for a send-only epoch
   * @param writeSecret our secret, or null for a receive-only epoch
   */
  public static EpochPacketKeys create(CryptoProvider provider, AeadAlgorithm algorithm,
      KeyLabels labels, byte[] readSecret, byte[] writeSecret) {
    if (readSecret == null && writeSecret == null) {
      throw new IllegalArgumentException("readSecret and writeSecret are both null");
    }
    Hkdf hkdf = new Hkdf(provider);
    PacketCipher r = null;
    PacketCipher w = null;
    HeaderProtector rhp = null;
    HeaderProtector whp = null;
    if (readSecret != null) {
      r = new PacketCipher(provider, hkdf, algorithm, labels, readSecret);
      rhp = hp(provider, hkdf, algorithm, labels, readSecret);
    }
    if (writeSecret != null) {
      w = new PacketCipher(provider, hkdf, algorithm, labels, writeSecret);
      whp = hp(provider, hkdf, algorithm, labels, writeSecret);
    }
    return new EpochPacketKeys(r, rhp, w, whp, algorithm);
  }

  static HeaderProtector hp(CryptoProvider provider, Hkdf hkdf, AeadAlgorithm algorithm,
      KeyLabels labels, byte[] secret) {
    return new HeaderProtector(provider, algorithm,
        hkdf.expandLabel(secret, labels.hp(), new byte[0], algorithm.keyBytes()));
  }

  private PacketCipher read() {
    if (read == null) {
      throw new IllegalStateException("this epoch has no read keys");
    }
    return read;
  }

  private PacketCipher write() {
    if (write == null) {
      throw new IllegalStateException("this epoch has no write keys");
    }
    return write;
  }

  @Override
  public int removeHeaderProtection(ByteBuffer packet, int packetStart, int pnOffset,
      int packetEnd) {
    read();
    return readHp.remove(PacketKeys.arrayOf(packet, "packet"), packet.arrayOffset() + packetStart,
        packet.arrayOffset() + pnOffset, packet.arrayOffset() + packetEnd);
  }

  @Override
  public int open(ByteBuffer packet, int packetStart, int payloadOffset, int packetEnd,
      long packetNumber) {
    byte[] buf = PacketKeys.arrayOf(packet, "packet");
    int base = packet.arrayOffset();
    int end = read().open(buf, base + packetStart,
        base + payloadOffset, base + packetEnd, packetNumber);
    if (end < 0) {
      failedOpens++;
      return -1;
    }
    return end - base;
  }

  @Override
  public boolean seal(ByteBuffer out, int packetStart, int payloadOffset, long packetNumber) {
    PacketCipher w = write();
    // RFC 9001 §6.6: a key that has sealed its limit is never used again.
    if (sealed >= confidentialityLimit) {
      return false;
    }
    byte[] buf = PacketKeys.arrayOf(out, "out");
    int base = out.arrayOffset();
    int end = w.seal(buf, base + packetStart, base + payloadOffset,
        base + out.position(), packetNumber);
    ((Buffer) out).position(end - base);
    sealed++;
    return true;
  }

  @Override
  public void applyHeaderProtection(ByteBuffer packet, int packetStart, int pnOffset) {
    write();
    writeHp.apply(PacketKeys.arrayOf(packet, "packet"), packet.arrayOffset() + packetStart,
        packet.arrayOffset() + pnOffset);
  }

  @Override
  public long failedOpens() {
    return failedOpens;
  }

  @Override
  public long integrityLimitPackets() {
    return integrityLimit;
  }
}
