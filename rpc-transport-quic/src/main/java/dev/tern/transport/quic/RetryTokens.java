package dev.tern.transport.quic;

import io.netty.buffer.ByteBuf;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Mints and checks Retry tokens (RFC 9000 §8.1.2, §8.1.4): the server's proof, returned by the
 * client in its next Initial packet, that the client receives datagrams at the address it claims.
 *
 * <p>A token is {@code version (1) | issued, seconds (8) | HMAC-SHA256 (32) | original destination
 * connection ID (0..20)}; the MAC covers the version, the time, the original destination connection
 * ID and the client's IP address, under a key drawn afresh for each server (a token is only ever
 * checked by the server that minted it, so the key is never shared or stored). The client's port
 * is left out so that a NAT rebinding between the Retry and the next Initial does not cost the
 * connection. Tokens expire after their lifetime; MACs are compared in constant time. Not
 * thread-safe: one server's event loop uses it.
 */
final class RetryTokens {
  /** The first byte of every token minted here: its format. */
  private static final byte VERSION = 1;
  private static final int MAC_BYTES = 32;
  private static final int HEADER_BYTES = 1 + 8 + MAC_BYTES;
  /** RFC 9000 §17.2: connection IDs are at most 20 bytes in QUIC version 1. */
  static final int MAX_CID_BYTES = 20;
  /** Clock difference tolerated for a token that claims to come from the future (none minted here do). */
  private static final long FUTURE_SKEW_SECONDS = 2;

  private final Mac mac;
  private final long lifetimeSeconds;
  private final byte[] macOut = new byte[MAC_BYTES];
  private final byte[] macIn = new byte[MAC_BYTES];
  private final byte[] cid = new byte[MAX_CID_BYTES];

  /**
   * A minter with a fresh random key.
   *
   * @param lifetimeMillis how long a token stays valid, more than 0
   */
  RetryTokens(long lifetimeMillis) {
    if (lifetimeMillis <= 0) {
      throw new IllegalArgumentException("quic.retryTokenLifetimeMillis must be > 0, was " + lifetimeMillis);
    }
    this.lifetimeSeconds = Math.max(1, TimeUnit.MILLISECONDS.toSeconds(lifetimeMillis));
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    try {
      mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
    }
  }

  /** The longest token minted: what Netty reserves for one. */
  static int maxTokenLength() {
    return HEADER_BYTES + MAX_CID_BYTES;
  }

  /**
   * Writes a token for a client at {@code address} whose first Initial had destination connection
   * ID {@code odcid} (read from its reader index, not consumed).
   *
   * @return false if {@code odcid} is longer than QUIC v1 allows (nothing written)
   */
  boolean mint(ByteBuf out, ByteBuf odcid, InetSocketAddress address, long nowSeconds) {
    int cidLength = odcid.readableBytes();
    if (cidLength > MAX_CID_BYTES) {
      return false;
    }
    odcid.getBytes(odcid.readerIndex(), cid, 0, cidLength);
    sign(nowSeconds, cid, cidLength, address.getAddress(), macOut);
    out.writeByte(VERSION).writeLong(nowSeconds).writeBytes(macOut).writeBytes(cid, 0, cidLength);
    return true;
  }

  /**
   * Checks a token a client at {@code address} sent back.
   *
   * @return the offset of the original destination connection ID in {@code token} (it runs to the
   *     token's end), or -1 if the token is malformed, expired, or was not minted here for this
   *     address
   */
  int validate(ByteBuf token, InetSocketAddress address, long nowSeconds) {
    int length = token.readableBytes();
    int at = token.readerIndex();
    if (length < HEADER_BYTES || length > HEADER_BYTES + MAX_CID_BYTES || token.getByte(at) != VERSION) {
      return -1;
    }
    long issued = token.getLong(at + 1);
    if (issued > nowSeconds + FUTURE_SKEW_SECONDS || nowSeconds - issued > lifetimeSeconds) {
      return -1;
    }
    int cidLength = length - HEADER_BYTES;
    token.getBytes(at + HEADER_BYTES, cid, 0, cidLength);
    token.getBytes(at + 9, macIn);
    sign(issued, cid, cidLength, address.getAddress(), macOut);
    // Constant time: a timing difference must not tell a forger how many leading bytes were right.
    return MessageDigest.isEqual(macOut, macIn) ? HEADER_BYTES : -1;
  }

  private void sign(long seconds, byte[] odcid, int odcidLength, InetAddress ip, byte[] into) {
    mac.update(VERSION);
    for (int shift = 56; shift >= 0; shift -= 8) {
      mac.update((byte) (seconds >>> shift));
    }
    mac.update((byte) odcidLength);
    mac.update(odcid, 0, odcidLength);
    mac.update(ip.getAddress());
    try {
      mac.doFinal(into, 0);
    } catch (javax.crypto.ShortBufferException e) {
      throw new IllegalStateException(e);
    }
  }
}
