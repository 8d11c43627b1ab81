package dev.tern.transport.udp.connection;

import dev.tern.transport.udp.crypto.Aead;
import dev.tern.transport.udp.crypto.AeadAlgorithm;
import dev.tern.transport.udp.crypto.CryptoProvider;
import dev.tern.transport.udp.crypto.Hkdf;
import dev.tern.transport.udp.packet.ConnectionId;
import dev.tern.transport.udp.util.Buffers;
import java.nio.ByteBuffer;
import java.security.MessageDigest;

/**
 * The Retry packet of the encrypted version (docs/protocol.md §9.7; RFC 9000 §17.2.5) and its
 * Retry Integrity Tag, computed as RFC 9001 §5.8 does, with a key and nonce of Tern's own:
 *
 * <pre>
 * retry_secret = 0xf9abccc5687d1038a572b22ca3f3384d10210eefe95847e0ed366875c7e60844
 * key   = HKDF-Expand-Label(retry_secret, "tern retry key", "", 16)   AES-128-GCM
 * nonce = HKDF-Expand-Label(retry_secret, "tern retry iv", "", 12)
 * tag   = AEAD(key, nonce, plaintext = "", aad = Retry Pseudo-Packet)
 * </pre>
 *
 * <p>The pseudo-packet is the Original Destination Connection ID (its length byte, then the ID)
 * followed by the Retry packet without its tag (RFC 9001 §5.8). The key is public: the tag
 * protects against accidental corruption and proves the sender saw the client's INITIAL (it
 * needs the DCID the client chose), nothing more. Used on the handshake path only; it
 * allocates.
 */
public final class RetryPacket {
  /** The fixed secret the Retry key and nonce are derived from. */
  static final byte[] RETRY_SECRET = hex(
      "f9abccc5687d1038a572b22ca3f3384d10210eefe95847e0ed366875c7e60844");
  /** The length of the Retry Integrity Tag. */
  public static final int TAG_BYTES = AeadAlgorithm.TAG_BYTES;

  private final CryptoProvider provider;
  private final byte[] key;
  private final byte[] nonce;

  /** The Retry integrity keys of {@code provider}. */
  public RetryPacket(CryptoProvider provider) {
    Hkdf hkdf = new Hkdf(provider);
    this.provider = provider;
    this.key = hkdf.expandLabel(RETRY_SECRET, "tern retry key", new byte[0], 16);
    this.nonce = hkdf.expandLabel(RETRY_SECRET, "tern retry iv", new byte[0], 12);
  }

  /** The AES-128-GCM key (for the golden vector). */
  static byte[] key(CryptoProvider provider) {
    return new Hkdf(provider).expandLabel(RETRY_SECRET, "tern retry key", new byte[0], 16);
  }

  /** The nonce (for the golden vector). */
  static byte[] nonce(CryptoProvider provider) {
    return new Hkdf(provider).expandLabel(RETRY_SECRET, "tern retry iv", new byte[0], 12);
  }

  /**
   * Writes a Retry packet at {@code out}'s position: {@code dcid} is the client's Source
   * Connection ID, {@code scid} the new connection ID the server chose, {@code odcid} the
   * Destination Connection ID of the client's INITIAL.
   *
   * @param unusedBits the first byte's four low bits (arbitrary, RFC 9000 §17.2.5)
   * @return the packet's size, or 0 if {@code out} has no room
   */
  public int write(ByteBuffer out, int version, int unusedBits, ConnectionId dcid,
      ConnectionId scid, byte[] token, ConnectionId odcid) {
    int size = 7 + dcid.length() + scid.length() + token.length + TAG_BYTES;
    if (out.remaining() < size) {
      return 0;
    }
    int start = out.position();
    out.put((byte) (0xf0 | (unusedBits & 0x0f)));
    out.putInt(version);
    out.put((byte) dcid.length());
    dcid.write(out);
    out.put((byte) scid.length());
    scid.write(out);
    out.put(token);
    byte[] tag = tag(odcid, out, start, out.position());
    out.put(tag);
    return size;
  }

  /**
   * Whether the Retry packet {@code [start, end)} of {@code in} carries a valid tag for a client
   * whose INITIAL went to {@code odcid} (RFC 9001 §5.8).
   */
  public boolean verify(ConnectionId odcid, ByteBuffer in, int start, int end) {
    if (end - start < 7 + TAG_BYTES) {
      return false;
    }
    byte[] expected = tag(odcid, in, start, end - TAG_BYTES);
    byte[] actual = new byte[TAG_BYTES];
    Buffers.get(in, end - TAG_BYTES, actual);
    return MessageDigest.isEqual(expected, actual);
  }

  private byte[] tag(ConnectionId odcid, ByteBuffer packet, int start, int end) {
    byte[] aad = new byte[1 + odcid.length() + end - start];
    aad[0] = (byte) odcid.length();
    ByteBuffer b = ByteBuffer.wrap(aad, 1, odcid.length());
    odcid.write(b);
    Buffers.get(packet, start, aad, 1 + odcid.length(), end - start);
    byte[] tag = new byte[TAG_BYTES];
    // A fresh AEAD per tag: the key and nonce are fixed (RFC 9001 §5.8), and a JCA cipher
    // refuses to seal twice under one key and IV.
    Aead aead = provider.newAead(AeadAlgorithm.AES_128_GCM, key);
    aead.seal(nonce, aad, 0, aad.length, new byte[0], 0, 0, tag, 0);
    return tag;
  }

  static byte[] hex(String s) {
    byte[] b = new byte[s.length() / 2];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
    }
    return b;
  }
}
