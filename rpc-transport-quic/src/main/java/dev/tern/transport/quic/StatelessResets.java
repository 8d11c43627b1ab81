package dev.tern.transport.quic;

import dev.tern.rpc.spi.TlsSettings;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DatagramPacket;
import io.netty.handler.codec.quic.QuicConnectionAddress;
import io.netty.handler.codec.quic.QuicConnectionIdGenerator;
import io.netty.handler.codec.quic.QuicResetTokenGenerator;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import javax.net.ssl.KeyManager;
import javax.net.ssl.X509KeyManager;

/**
 * Stateless resets (RFC 9000 §10.3) from a restarted QUIC server, with a proof of when it started.
 *
 * <p>A server killed and started again on its port knows nothing of its old connections, and a
 * client on a quiet connection learns it only when its next call goes unanswered. RFC 9000 §10.3
 * lets the new process say so at once, if it can compute the token the old one gave for the
 * connection. quiche checks only the token of the server's transport parameters, which Netty sets
 * for a whole server, and Netty's client drops a datagram whose connection ID it does not know
 * before quiche sees it; so both ends are Tern's own here:
 *
 * <ul>
 *   <li><b>Connection IDs</b> are {@code boot tag (4) | AES-128(group (8) | random (8))}: the boot
 *       tag is drawn when the server starts, the group when a connection starts, and every ID the
 *       connection issues later (RFC 9000 §5.1.1) keeps its group under a new random half, so IDs
 *       of one connection are not linkable by an observer (§9.5). A short-header packet whose tag is
 *       not the server's was sent to an earlier process.
 *   <li><b>The connection's secret</b> {@code S = HMAC-SHA256(secret key, group)[0..16]} goes to
 *       the client in three of the server's HTTP/3 SETTINGS parameters (private-use identifiers,
 *       RFC 9114 §11.2.2), encrypted like everything after the handshake. The token is {@code
 *       HMAC(S, "t")[0..16]}; quiche's NEW_CONNECTION_ID tokens are the same, from {@link #tokens}.
 *   <li><b>The reset</b>, 37 bytes, always shorter than the packet that drew it (§10.3.3):
 *       {@code 01xxxxxx | nonce (8) | uptime ms XOR HMAC(S, "m" | nonce)[0..4] | HMAC(S, "p" | nonce
 *       | uptime)[0..8] | token (16)}. The uptime counts from the moment the new server's socket was
 *       bound, which is after the old process lost the port. A client that sees its token (compared
 *       without leaking it, §10.3.1) and a valid proof knows that a call whose stream opened after
 *       {@code receipt - uptime} can only have reached the new process, which refused it unread:
 *       the call layer may send it again. Calls opened before may have reached the old process.
 * </ul>
 *
 * <p>Keys: the master key is HMAC-SHA256 over the server's TLS private key (PKCS#8), so a server
 * restarted with the same key computes the same tokens; a key that cannot be read (a hardware key
 * behind a {@link KeyManager}) gives a random master key, and resets then only reach clients of
 * the same process. Resets are rate-limited and counted.
 */
final class StatelessResets {
  static final int CID_BYTES = 20;
  static final int TAG_BYTES = 4;
  static final int TOKEN_BYTES = 16;
  static final int SECRET_BYTES = 16;
  private static final int NONCE_BYTES = 8;
  private static final int UPTIME_BYTES = 4;
  private static final int PROOF_BYTES = 8;
  /** The reset's length: first byte, nonce, masked uptime, proof, token. */
  static final int RESET_BYTES = 1 + NONCE_BYTES + UPTIME_BYTES + PROOF_BYTES + TOKEN_BYTES;
  /**
   * SETTINGS identifiers carrying S in 48, 48 and 32 bits: private use, not of the reserved
   * {@code 0x1f * N + 0x21} form (RFC 9114 §7.2.4.1).
   */
  static final long SETTING_SECRET_0 = 0x7465726fL;
  static final long SETTING_SECRET_1 = 0x74657270L;
  static final long SETTING_SECRET_2 = 0x74657271L;
  /** Resets sent at most per second by one server; beyond it the triggering packets are only dropped. */
  static final int MAX_RESETS_PER_SECOND = 1000;

  private StatelessResets() {}

  static boolean isSecretSetting(long id) {
    return id == SETTING_SECRET_0 || id == SETTING_SECRET_1 || id == SETTING_SECRET_2;
  }

  /** The SETTINGS values carrying {@code secret}, in identifier order. */
  static long[] toSettings(byte[] secret) {
    ByteBuffer b = ByteBuffer.wrap(secret);
    long a = ((long) b.getShort() & 0xffff) << 32 | (b.getInt() & 0xffffffffL);
    long c = ((long) b.getShort() & 0xffff) << 32 | (b.getInt() & 0xffffffffL);
    long d = b.getInt() & 0xffffffffL;
    return new long[] {a, c, d};
  }

  /** The secret from its three SETTINGS values, or null if one is missing. */
  static byte[] fromSettings(Long a, Long c, Long d) {
    if (a == null || c == null || d == null) {
      return null;
    }
    ByteBuffer b = ByteBuffer.allocate(SECRET_BYTES);
    b.putShort((short) (a >>> 32)).putInt((int) (long) a);
    b.putShort((short) (c >>> 32)).putInt((int) (long) c);
    b.putInt((int) (long) d);
    return b.array();
  }

  /** The master key for a server with these TLS settings; see the class comment. */
  static byte[] masterKey(TlsSettings tls) {
    byte[] encoded = null;
    try {
      PrivateKey key = tls.privateKeyPem() != null ? tls.privateKey() : keyOf(tls.keyManager());
      encoded = key == null ? null : key.getEncoded();
    } catch (RuntimeException e) {
      encoded = null;
    }
    if (encoded == null) {
      byte[] random = new byte[32];
      new SecureRandom().nextBytes(random);
      return random;
    }
    return hmac(encoded, "tern quic stateless reset v1".getBytes(StandardCharsets.US_ASCII));
  }

  private static PrivateKey keyOf(KeyManager km) {
    if (!(km instanceof X509KeyManager)) {
      return null;
    }
    X509KeyManager x = (X509KeyManager) km;
    for (String type : new String[] {"EC", "RSA", "Ed25519", "EdDSA", "RSASSA-PSS"}) {
      String[] aliases = x.getServerAliases(type, null);
      if (aliases != null && aliases.length > 0) {
        return x.getPrivateKey(aliases[0]);
      }
    }
    return null;
  }

  static byte[] hmac(byte[] key, byte[]... parts) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      for (byte[] p : parts) {
        mac.update(p);
      }
      return mac.doFinal();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
    }
  }

  static byte[] token(byte[] secret) {
    return java.util.Arrays.copyOf(hmac(secret, new byte[] {'t'}), TOKEN_BYTES);
  }

  /** The connection ID's bytes, read from its string form (Netty keeps the bytes package-private). */
  static byte[] idBytes(QuicConnectionAddress address) {
    String s = String.valueOf(address);
    int eq = s.lastIndexOf('=');
    int end = s.lastIndexOf('}');
    if (eq < 0 || end <= eq) {
      return null;
    }
    String hex = s.substring(eq + 1, end);
    if (hex.length() != CID_BYTES * 2) {
      return null;
    }
    try {
      return io.netty.buffer.ByteBufUtil.decodeHexDump(hex);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /** A server's connection IDs, tokens and reset responder. Used on the server's event loop only. */
  static final class Server {
    private final byte[] bootTag = new byte[TAG_BYTES];
    private final byte[] secretKey;
    private final Cipher encrypt;
    private final Cipher decrypt;
    private final SecureRandom random = new SecureRandom();
    private final byte[] block = new byte[16];
    private final byte[] plain = new byte[16];
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong suppressed = new AtomicLong();
    private volatile long boundAtNanos;
    private long windowStartNanos;
    private int inWindow;

    Server(byte[] masterKey) {
      random.nextBytes(bootTag);
      this.secretKey = hmac(masterKey, "secret".getBytes(StandardCharsets.US_ASCII));
      byte[] cidKey = java.util.Arrays.copyOf(hmac(masterKey, "cid".getBytes(StandardCharsets.US_ASCII)), 16);
      try {
        encrypt = Cipher.getInstance("AES/ECB/NoPadding");
        encrypt.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(cidKey, "AES"));
        decrypt = Cipher.getInstance("AES/ECB/NoPadding");
        decrypt.init(Cipher.DECRYPT_MODE, new SecretKeySpec(cidKey, "AES"));
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("AES is not available in this JVM", e);
      }
      boundAtNanos = System.nanoTime();
    }

    /** The server's socket is bound: uptimes count from now. */
    void bound() {
      boundAtNanos = System.nanoTime();
    }

    long sent() {
      return sent.get();
    }

    long suppressed() {
      return suppressed.get();
    }

    /** The secret of the connection whose ID this is, or null if it is not one of this key's. */
    byte[] secretOf(byte[] cid) {
      if (cid == null || cid.length != CID_BYTES) {
        return null;
      }
      synchronized (this) {
        try {
          decrypt.doFinal(cid, TAG_BYTES, 16, plain, 0);
        } catch (GeneralSecurityException e) {
          return null;
        }
        return java.util.Arrays.copyOf(hmac(secretKey, java.util.Arrays.copyOf(plain, 8)), SECRET_BYTES);
      }
    }

    private synchronized ByteBuffer newId(byte[] group) {
      System.arraycopy(group, 0, plain, 0, 8);
      random.nextBytes(block);
      System.arraycopy(block, 0, plain, 8, 8);
      byte[] id = new byte[CID_BYTES];
      System.arraycopy(bootTag, 0, id, 0, TAG_BYTES);
      try {
        encrypt.doFinal(plain, 0, 16, id, TAG_BYTES);
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException(e);
      }
      return ByteBuffer.wrap(id);
    }

    private byte[] groupOf(ByteBuffer id) {
      if (id == null || id.remaining() != CID_BYTES) {
        return null;
      }
      byte[] c = new byte[CID_BYTES];
      id.duplicate().get(c);
      synchronized (this) {
        try {
          decrypt.doFinal(c, TAG_BYTES, 16, plain, 0);
        } catch (GeneralSecurityException e) {
          return null;
        }
        return java.util.Arrays.copyOf(plain, 8);
      }
    }

    /** Connection IDs in the format above, for Netty's codec builder. */
    QuicConnectionIdGenerator ids() {
      return new QuicConnectionIdGenerator() {
        @Override
        public ByteBuffer newId(int length) {
          if (length != CID_BYTES) {
            throw new IllegalArgumentException("quic: connection IDs are " + CID_BYTES + " bytes here, asked " + length);
          }
          byte[] group = new byte[8];
          synchronized (Server.this) {
            random.nextBytes(group);
          }
          return Server.this.newId(group);
        }

        @Override
        public ByteBuffer newId(ByteBuffer input, int length) {
          // Netty passes the connection's current ID when quiche wants more for the same connection.
          byte[] group = groupOf(input);
          return group == null || length != CID_BYTES ? newId(length) : Server.this.newId(group);
        }

        @Override
        public ByteBuffer newId(ByteBuffer scid, ByteBuffer dcid, int length) {
          return newId(length); // a new connection: a new group
        }

        @Override
        public int maxConnectionIdLength() {
          return CID_BYTES;
        }

        @Override
        public boolean isIdempotent() {
          return false;
        }
      };
    }

    /** The stateless reset token of each new connection ID (RFC 9000 §19.15), for Netty's codec builder. */
    QuicResetTokenGenerator tokens() {
      return cid -> {
        byte[] c = new byte[cid.remaining()];
        cid.duplicate().get(c);
        byte[] secret = secretOf(c);
        if (secret == null) {
          byte[] t = new byte[TOKEN_BYTES];
          synchronized (this) {
            random.nextBytes(t);
          }
          return ByteBuffer.wrap(t);
        }
        return ByteBuffer.wrap(token(secret));
      };
    }

    /**
     * The responder, placed before the codec in the server's UDP pipeline. Each datagram it takes
     * (answered or, over the rate limit, only dropped) is reported to {@code events} as {@link
     * dev.tern.rpc.spi.TransportEvents#UNKNOWN_CONNECTION}.
     */
    ChannelInboundHandlerAdapter responder(dev.tern.rpc.spi.TransportEvents events) {
      return new ChannelInboundHandlerAdapter() {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
          if (msg instanceof DatagramPacket && fromEarlierProcess(((DatagramPacket) msg).content())) {
            events.refused(dev.tern.rpc.spi.TransportEvents.UNKNOWN_CONNECTION);
            DatagramPacket p = (DatagramPacket) msg;
            try {
              respond(ctx, p);
            } finally {
              p.release();
            }
            return;
          }
          ctx.fireChannelRead(msg);
        }
      };
    }

    /**
     * A short-header packet (RFC 9000 §17.3: the header form bit clear, the fixed bit set) longer
     * than a reset, whose connection ID does not carry this process's boot tag. Reads five bytes.
     */
    boolean fromEarlierProcess(ByteBuf d) {
      int at = d.readerIndex();
      if (d.readableBytes() <= RESET_BYTES || d.readableBytes() < 1 + CID_BYTES) {
        return false;
      }
      if ((d.getUnsignedByte(at) & 0xc0) != 0x40) {
        return false;
      }
      for (int i = 0; i < TAG_BYTES; i++) {
        if (d.getByte(at + 1 + i) != bootTag[i]) {
          return true;
        }
      }
      return false;
    }

    private void respond(ChannelHandlerContext ctx, DatagramPacket p) {
      long now = System.nanoTime();
      if (now - windowStartNanos >= TimeUnit.SECONDS.toNanos(1)) {
        windowStartNanos = now;
        inWindow = 0;
      }
      if (inWindow >= MAX_RESETS_PER_SECOND) {
        suppressed.incrementAndGet();
        return;
      }
      inWindow++;
      ByteBuf d = p.content();
      byte[] cid = new byte[CID_BYTES];
      d.getBytes(d.readerIndex() + 1, cid);
      byte[] secret = secretOf(cid);
      long uptime = Math.min(0xffffffffL, TimeUnit.NANOSECONDS.toMillis(now - boundAtNanos));
      byte[] reset = reset(secret, uptime);
      sent.incrementAndGet();
      ctx.writeAndFlush(new DatagramPacket(io.netty.buffer.Unpooled.wrappedBuffer(reset), p.sender()));
    }

    private byte[] reset(byte[] secret, long uptime) {
      byte[] r = new byte[RESET_BYTES];
      synchronized (this) {
        random.nextBytes(r);
      }
      r[0] = (byte) (0x40 | (r[0] & 0x3f));
      byte[] nonce = java.util.Arrays.copyOfRange(r, 1, 1 + NONCE_BYTES);
      byte[] up = ByteBuffer.allocate(UPTIME_BYTES).putInt((int) uptime).array();
      byte[] mask = hmac(secret, new byte[] {'m'}, nonce);
      byte[] proof = hmac(secret, new byte[] {'p'}, nonce, up);
      int at = 1 + NONCE_BYTES;
      for (int i = 0; i < UPTIME_BYTES; i++) {
        r[at + i] = (byte) (up[i] ^ mask[i]);
      }
      System.arraycopy(proof, 0, r, at + UPTIME_BYTES, PROOF_BYTES);
      System.arraycopy(token(secret), 0, r, RESET_BYTES - TOKEN_BYTES, TOKEN_BYTES);
      return r;
    }
  }

  /**
   * A client's detector, placed before the codec in its UDP pipeline: armed with the connection's
   * secret once the server's SETTINGS arrive; tells {@code onReset} the server's uptime in ms (-1 if
   * the proof is wrong) on the channel's event loop. Nothing is allocated for datagrams that are
   * not the reset.
   */
  static final class Detector extends ChannelInboundHandlerAdapter {
    private final LongConsumer onReset;
    private volatile byte[] secret;
    private volatile long tokenHigh;
    private volatile long tokenLow;
    private volatile boolean armed;

    Detector(LongConsumer onReset) {
      this.onReset = onReset;
    }

    void arm(byte[] connectionSecret) {
      ByteBuffer t = ByteBuffer.wrap(token(connectionSecret));
      tokenHigh = t.getLong();
      tokenLow = t.getLong();
      secret = connectionSecret;
      armed = true;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (armed && msg instanceof DatagramPacket && isReset(((DatagramPacket) msg).content())) {
        DatagramPacket p = (DatagramPacket) msg;
        long uptime;
        try {
          uptime = uptimeOf(p.content());
        } finally {
          p.release();
        }
        onReset.accept(uptime);
        return;
      }
      ctx.fireChannelRead(msg);
    }

    /**
     * RFC 9000 §10.3.1: a datagram that ends with the token; compared without leaking how much of
     * it matched. Datagrams of this length or longer are short-header packets or resets; a packet
     * of the connection ends with a 16-byte AEAD tag, which matches the token with probability
     * 2^-128.
     */
    private boolean isReset(ByteBuf d) {
      int n = d.readableBytes();
      if (n < RESET_BYTES || (d.getUnsignedByte(d.readerIndex()) & 0xc0) != 0x40) {
        return false;
      }
      int end = d.readerIndex() + n;
      long diff = (d.getLong(end - TOKEN_BYTES) ^ tokenHigh) | (d.getLong(end - 8) ^ tokenLow);
      return diff == 0;
    }

    private long uptimeOf(ByteBuf d) {
      int end = d.readerIndex() + d.readableBytes();
      int at = end - TOKEN_BYTES - PROOF_BYTES - UPTIME_BYTES - NONCE_BYTES;
      byte[] nonce = new byte[NONCE_BYTES];
      d.getBytes(at, nonce);
      byte[] up = new byte[UPTIME_BYTES];
      d.getBytes(at + NONCE_BYTES, up);
      byte[] proof = new byte[PROOF_BYTES];
      d.getBytes(at + NONCE_BYTES + UPTIME_BYTES, proof);
      byte[] s = secret;
      byte[] mask = hmac(s, new byte[] {'m'}, nonce);
      for (int i = 0; i < UPTIME_BYTES; i++) {
        up[i] ^= mask[i];
      }
      byte[] expected = java.util.Arrays.copyOf(hmac(s, new byte[] {'p'}, nonce, up), PROOF_BYTES);
      if (!java.security.MessageDigest.isEqual(expected, proof)) {
        return -1;
      }
      return ByteBuffer.wrap(up).getInt() & 0xffffffffL;
    }
  }
}
