package dev.tern.transport.udp.crypto;

import java.nio.Buffer;
import java.nio.ByteBuffer;

/**
 * The 1-RTT keys of a connection, with key update (RFC 9001 §6). Packets carry a key-phase bit
 * (the 0x04 bit of the short header's first byte, under header protection); each update derives
 * the next generation's secret as HKDF-Expand-Label(secret, labels.ku(), "", 32) and from it a
 * new key and IV, keeping the header-protection keys (RFC 9001 §6.1).
 *
 * <p>Receive side: the next generation's keys are derived in advance, so a packet in the new
 * phase costs no more time than any other (RFC 9001 §6.3); the previous generation's keys are
 * kept so that reordered packets still open (RFC 9001 §6.5) until the connection calls
 * {@link #discardPreviousReadKeys()}, three probe timeouts after {@link #readGeneration()} last
 * changed (RFC 9001 §6.1: old keys are kept for a while after a packet of the new ones opened,
 * then dropped). A packet that needed them is then dropped as {@link #KEYS_DISCARDED}.
 *
 * <p>Send side: {@link #seal} starts an update by itself once the current key has sealed
 * {@code updateAfterPackets} packets, well before the AEAD's confidentiality limit (RFC 9001
 * §6.6), provided the rules of RFC 9001 §6.1 allow it: the handshake is confirmed and a packet
 * sealed with the current keys has been acknowledged. The connection reports both with
 * {@link #onHandshakeConfirmed()} and {@link #onPacketAcknowledged(long)}.
 */
public final class OneRttPacketKeys implements PacketKeys {
  private static final int KEY_PHASE_BIT = 0x04;

  private final CryptoProvider provider;
  private final Hkdf hkdf;
  private final AeadAlgorithm algorithm;
  private final KeyLabels labels;
  private final HeaderProtector readHp;
  private final HeaderProtector writeHp;
  private final long updateAfterPackets;
  private final long confidentialityLimit;
  private final long integrityLimit;

  private PacketCipher readPrevious;
  private PacketCipher readCurrent;
  private PacketCipher readNext;
  private long readGeneration;
  private long firstPnOfReadGeneration;

  private PacketCipher write;
  private long writeGeneration;
  private long sealedWithWriteKey;
  private long firstPnOfWriteGeneration = -1;
  private boolean writeGenerationAcked;
  private boolean handshakeConfirmed;

  private long failedOpens;
  private long keyUpdates;

  /**
   * Keys from the 1-RTT traffic secrets, updating after 3/4 of the AEAD's confidentiality limit.
   */
  public OneRttPacketKeys(CryptoProvider provider, AeadAlgorithm algorithm, KeyLabels labels,
      byte[] readSecret, byte[] writeSecret) {
    this(provider, algorithm, labels, readSecret, writeSecret,
        algorithm.confidentialityLimitPackets() / 4 * 3, algorithm.confidentialityLimitPackets());
  }

  /**
   * Keys with explicit limits (tests use small ones).
   *
   * @param updateAfterPackets packets one key seals before an update is started
   * @param confidentialityLimit packets one key may seal at most (RFC 9001 §6.6)
   */
  public OneRttPacketKeys(CryptoProvider provider, AeadAlgorithm algorithm, KeyLabels labels,
      byte[] readSecret, byte[] writeSecret, long updateAfterPackets, long confidentialityLimit) {
    if (updateAfterPackets < 1 || updateAfterPackets > confidentialityLimit
        || confidentialityLimit > algorithm.confidentialityLimitPackets()) {
      throw new IllegalArgumentException("need 1 <= updateAfterPackets (" + updateAfterPackets
          + ") <= confidentialityLimit (" + confidentialityLimit + ") <= "
          + algorithm.confidentialityLimitPackets());
    }
    this.provider = provider;
    this.hkdf = new Hkdf(provider);
    this.algorithm = algorithm;
    this.labels = labels;
    this.updateAfterPackets = updateAfterPackets;
    this.confidentialityLimit = confidentialityLimit;
    this.integrityLimit = algorithm.integrityLimitPackets();
    this.readHp = EpochPacketKeys.hp(provider, hkdf, algorithm, labels, readSecret);
    this.writeHp = EpochPacketKeys.hp(provider, hkdf, algorithm, labels, writeSecret);
    this.readCurrent = new PacketCipher(provider, hkdf, algorithm, labels, readSecret);
    this.readNext = next(readCurrent);
    this.write = new PacketCipher(provider, hkdf, algorithm, labels, writeSecret);
  }

  /** RFC 9001 §6.1: secret_n+1 = HKDF-Expand-Label(secret_n, "ku" label, "", Hash.length). */
  private PacketCipher next(PacketCipher c) {
    return new PacketCipher(provider, hkdf, algorithm, labels, nextSecret(c.secret()));
  }

  /** The next generation's secret of {@code secret}. */
  byte[] nextSecret(byte[] secret) {
    return hkdf.expandLabel(secret, labels.ku(), new byte[0], Hkdf.HASH_BYTES);
  }

  /** The key phase packets are sealed with now (0 or 1). */
  public int keyPhase() {
    return (int) (writeGeneration & 1);
  }

  /** Key updates completed or started so far, by either side. */
  public long keyUpdates() {
    return keyUpdates;
  }

  /** RFC 9001 §6.1: no update before the handshake is confirmed. */
  public void onHandshakeConfirmed() {
    handshakeConfirmed = true;
  }

  /** An acknowledgement arrived for 1-RTT packet {@code packetNumber}. */
  public void onPacketAcknowledged(long packetNumber) {
    if (firstPnOfWriteGeneration >= 0 && packetNumber >= firstPnOfWriteGeneration) {
      writeGenerationAcked = true;
    }
  }

  /** Whether RFC 9001 §6.1 allows starting a key update now. */
  public boolean canInitiateKeyUpdate() {
    return handshakeConfirmed && writeGenerationAcked && writeGeneration == readGeneration;
  }

  /**
   * Starts a key update: from the next packet on, packets are sealed with the next generation's
   * keys and the other key phase.
   *
   * @return false if RFC 9001 §6.1 does not allow one now ({@link #canInitiateKeyUpdate()})
   */
  public boolean initiateKeyUpdate() {
    if (!canInitiateKeyUpdate()) {
      return false;
    }
    advanceWrite();
    return true;
  }

  private void advanceWrite() {
    write = next(write);
    writeGeneration++;
    sealedWithWriteKey = 0;
    firstPnOfWriteGeneration = -1;
    writeGenerationAcked = false;
    keyUpdates++;
  }

  /**
   * The generation of the read keys in use: 0 from the handshake, one more each time a packet
   * of the next key phase opened (RFC 9001 §6.2). The connection starts the timer that discards
   * the previous generation's keys when it changes.
   */
  public long readGeneration() {
    return readGeneration;
  }

  /** Whether the previous generation's read keys are still held (RFC 9001 §6.5). */
  public boolean hasPreviousReadKeys() {
    return readPrevious != null;
  }

  /**
   * Forgets the previous generation's read keys (RFC 9001 §6.1, §6.5): from now on a packet of
   * the previous key phase is dropped unopened.
   */
  public void discardPreviousReadKeys() {
    readPrevious = null;
  }

  @Override
  public int removeHeaderProtection(ByteBuffer packet, int packetStart, int pnOffset,
      int packetEnd) {
    return readHp.remove(PacketKeys.arrayOf(packet, "packet"), packet.arrayOffset() + packetStart,
        packet.arrayOffset() + pnOffset, packet.arrayOffset() + packetEnd);
  }

  @Override
  public int open(ByteBuffer packet, int packetStart, int payloadOffset, int packetEnd,
      long packetNumber) {
    byte[] buf = PacketKeys.arrayOf(packet, "packet");
    int base = packet.arrayOffset();
    int phase = (buf[base + packetStart] & KEY_PHASE_BIT) >>> 2;
    PacketCipher c;
    boolean next = false;
    if (phase == (readGeneration & 1)) {
      c = readCurrent;
    } else if (packetNumber < firstPnOfReadGeneration) {
      // RFC 9001 §6.5: older than the update, so sealed with the previous keys.
      c = readPrevious;
      if (c == null) {
        return KEYS_DISCARDED; // a late packet, not a forgery: not counted in failedOpens
      }
    } else {
      c = readNext;
      next = true;
    }
    int end = c.open(buf, base + packetStart, base + payloadOffset, base + packetEnd,
        packetNumber);
    if (end < 0) {
      // RFC 9001 §6.4: a packet in the other phase that does not open is dropped and does not
      // trigger an update.
      failedOpens++;
      return -1;
    }
    if (next) {
      promoteRead(packetNumber);
    } else if (c == readCurrent && packetNumber < firstPnOfReadGeneration) {
      firstPnOfReadGeneration = packetNumber;
    }
    return end - base;
  }

  private void promoteRead(long packetNumber) {
    readPrevious = readCurrent;
    readCurrent = readNext;
    readNext = next(readCurrent);
    readGeneration++;
    firstPnOfReadGeneration = packetNumber;
    if (writeGeneration < readGeneration) {
      // RFC 9001 §6.2: the peer started this update; answer it by updating our keys too.
      advanceWrite();
    }
  }

  @Override
  public boolean seal(ByteBuffer out, int packetStart, int payloadOffset, long packetNumber) {
    byte[] buf = PacketKeys.arrayOf(out, "out");
    int base = out.arrayOffset();
    if ((buf[base + packetStart] & 0x80) != 0) {
      throw new IllegalArgumentException("1-RTT keys seal short-header packets only; the packet at "
          + packetStart + " has a long header");
    }
    if (sealedWithWriteKey >= updateAfterPackets) {
      initiateKeyUpdate(); // RFC 9001 §6.6: update before the confidentiality limit
    }
    if (sealedWithWriteKey >= confidentialityLimit) {
      return false;
    }
    buf[base + packetStart] = (byte) ((buf[base + packetStart] & ~KEY_PHASE_BIT)
        | (keyPhase() << 2));
    int end = write.seal(buf, base + packetStart, base + payloadOffset, base + out.position(),
        packetNumber);
    ((Buffer) out).position(end - base);
    sealedWithWriteKey++;
    if (firstPnOfWriteGeneration < 0) {
      firstPnOfWriteGeneration = packetNumber;
    }
    return true;
  }

  @Override
  public void applyHeaderProtection(ByteBuffer packet, int packetStart, int pnOffset) {
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
