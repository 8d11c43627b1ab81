package dev.tern.transport.udp.connection;

import dev.tern.transport.udp.crypto.Aead;
import dev.tern.transport.udp.crypto.AeadAlgorithm;
import dev.tern.transport.udp.crypto.CryptoProvider;
import dev.tern.transport.udp.crypto.Hkdf;
import dev.tern.transport.udp.handshake.ServerStaticKey;
import dev.tern.transport.udp.packet.ConnectionId;
import dev.tern.transport.udp.util.Buffers;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.List;
import java.util.Random;

/**
 * A server's address-validation tokens (RFC 9000 §8.1.3, §8.1.4; docs/protocol.md §9.8): sealed
 * with AES-256-GCM under a token key derived from each of the server's static keys, so that every
 * instance holding the static key reads the tokens of the others, and a static-key rotation
 * rotates the token key too (the token names the static key's id; the current and the previous
 * key are accepted, as for handshakes).
 *
 * <pre>
 * token_key = HKDF-Expand-Label(HKDF-Extract("", static private key), "tern token", "", 32)
 * Token {
 *   Key Id (8),                 // the static key's id
 *   Nonce (96),                 // random
 *   Sealed (..) {               // AEAD(token_key, Nonce, aad = Key Id || Nonce)
 *     Kind (8),                 // 0x01 Retry, 0x02 NEW_TOKEN
 *     Issued (64),              // ms since the epoch, the server's clock
 *     Address Length (8), Address (..),   // Retry: IP and port; NEW_TOKEN: IP only
 *     [ODCID Length (8), ODCID (..)],     // Retry only: the client's first DCID
 *   },
 *   Tag (128),
 * }
 * </pre>
 *
 * <p>Not thread-safe (one per endpoint thread). Used only for INITIALs that would create a
 * connection and once per connection for NEW_TOKEN: it allocates.
 */
public final class AddressTokens {
  /** A token from a Retry (RFC 9000 §8.1.2). */
  public static final int KIND_RETRY = 1;
  /** A token from a NEW_TOKEN frame (RFC 9000 §8.1.3). */
  public static final int KIND_NEW_TOKEN = 2;
  /** How far a token's issue time may lie in the future (clocks of instances differ), ms. */
  static final long CLOCK_SKEW_MS = 2_000;
  private static final int HEADER = 1 + AeadAlgorithm.NONCE_BYTES;
  /** The longest token a server of ours issues, and the longest a client sends. */
  public static final int MAX_TOKEN_BYTES = HEADER + 1 + 8 + 1 + 18 + 1
      + ConnectionId.MAX_LENGTH + AeadAlgorithm.TAG_BYTES;

  private final int[] keyIds;
  private final Aead[] aeads;
  private final Random random;

  /** What a token said, once it opened. */
  public static final class Contents {
    /** {@link #KIND_RETRY} or {@link #KIND_NEW_TOKEN}. */
    public int kind;
    /** When it was issued, ms since the epoch. */
    public long issuedMs;
    /** The address it was issued to. */
    public byte[] address;
    /** Retry: the client's first Destination Connection ID; else null. */
    public ConnectionId originalDcid;
  }

  /**
   * Tokens under the keys of {@code staticKeys}, sealed with the first (the current one).
   *
   * @param random the source of the nonces (a secure one outside tests)
   */
  public AddressTokens(CryptoProvider provider, List<ServerStaticKey> staticKeys, Random random) {
    if (staticKeys.isEmpty()) {
      throw new IllegalArgumentException("address tokens need a server static key");
    }
    Hkdf hkdf = new Hkdf(provider);
    keyIds = new int[staticKeys.size()];
    aeads = new Aead[staticKeys.size()];
    for (int i = 0; i < keyIds.length; i++) {
      keyIds[i] = staticKeys.get(i).keyId();
      aeads[i] = provider.newAead(AeadAlgorithm.AES_256_GCM,
          tokenKey(hkdf, staticKeys.get(i).privateKey()));
    }
    this.random = random;
  }

  static byte[] tokenKey(Hkdf hkdf, byte[] staticPrivateKey) {
    byte[] prk = hkdf.extract(new byte[0], staticPrivateKey);
    return hkdf.expandLabel(prk, "tern token", new byte[0], 32);
  }

  /**
   * A new token.
   *
   * @param originalDcid for a Retry token the client's first DCID; null for NEW_TOKEN
   */
  public byte[] seal(int kind, long issuedMs, byte[] address, ConnectionId originalDcid) {
    int plain = 1 + 8 + 1 + address.length
        + (originalDcid == null ? 0 : 1 + originalDcid.length());
    byte[] token = new byte[HEADER + plain + AeadAlgorithm.TAG_BYTES];
    ByteBuffer b = ByteBuffer.wrap(token);
    b.put((byte) keyIds[0]);
    byte[] nonce = new byte[AeadAlgorithm.NONCE_BYTES];
    random.nextBytes(nonce);
    b.put(nonce);
    b.put((byte) kind).putLong(issuedMs).put((byte) address.length).put(address);
    if (originalDcid != null) {
      b.put((byte) originalDcid.length());
      originalDcid.write(b);
    }
    aeads[0].seal(nonce, token, 0, HEADER, token, HEADER, plain, token, HEADER);
    return token;
  }

  /**
   * Opens the token at {@code [offset, offset + length)} of {@code in} (not changed).
   *
   * @return what it says, or null if it does not open: another server's, a key no longer held,
   *     altered, or not a token at all
   */
  public Contents open(ByteBuffer in, int offset, int length) {
    if (length < HEADER + 1 + 8 + 1 + AeadAlgorithm.TAG_BYTES || length > MAX_TOKEN_BYTES) {
      return null;
    }
    int keyId = in.get(offset) & 0xff;
    Aead aead = null;
    for (int i = 0; i < keyIds.length; i++) {
      if (keyIds[i] == keyId) {
        aead = aeads[i];
      }
    }
    if (aead == null) {
      return null;
    }
    byte[] token = new byte[length];
    Buffers.get(in, offset, token);
    byte[] nonce = new byte[AeadAlgorithm.NONCE_BYTES];
    System.arraycopy(token, 1, nonce, 0, nonce.length);
    int plain = aead.open(nonce, token, 0, HEADER, token, HEADER, length - HEADER, token, HEADER);
    if (plain < 0) {
      return null;
    }
    ByteBuffer b = ByteBuffer.wrap(token, HEADER, plain);
    Contents c = new Contents();
    c.kind = b.get();
    c.issuedMs = b.getLong();
    int addressLength = b.get() & 0xff;
    if (addressLength > b.remaining()) {
      return null;
    }
    c.address = new byte[addressLength];
    b.get(c.address);
    if (c.kind == KIND_RETRY) {
      int n = b.hasRemaining() ? b.get() & 0xff : -1;
      if (n < 0 || n > ConnectionId.MAX_LENGTH || n != b.remaining()) {
        return null;
      }
      c.originalDcid = ConnectionId.read(b, b.position(), n);
    } else if (c.kind != KIND_NEW_TOKEN || b.hasRemaining()) {
      return null;
    }
    return c;
  }

  /**
   * Whether {@code c} is valid now for a client at {@code address}: issued to that address, not
   * in the future (beyond {@link #CLOCK_SKEW_MS}) and not older than {@code lifetimeMs}.
   */
  public static boolean valid(Contents c, byte[] address, long nowMs, long lifetimeMs) {
    return MessageDigest.isEqual(c.address, address) && c.issuedMs - nowMs <= CLOCK_SKEW_MS
        && nowMs - c.issuedMs <= lifetimeMs;
  }
}
