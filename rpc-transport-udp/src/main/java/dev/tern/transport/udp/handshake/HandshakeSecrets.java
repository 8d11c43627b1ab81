package dev.tern.transport.udp.handshake;

import dev.tern.transport.udp.crypto.AeadAlgorithm;
import dev.tern.transport.udp.crypto.CryptoProvider;
import dev.tern.transport.udp.crypto.EpochPacketKeys;
import dev.tern.transport.udp.crypto.Hkdf;
import dev.tern.transport.udp.crypto.KeyLabels;
import dev.tern.transport.udp.crypto.OneRttPacketKeys;

/**
 * The traffic secrets a finished handshake exports (docs/udp-crypto.md §6). With Noise's Split()
 * keys k1, k2 (Noise revision 34 §5.2) and the final handshake hash h:
 * <pre>
 *   master    = HKDF-Extract(salt = h, IKM = k1 || k2)
 *   c_hs      = HKDF-Expand-Label(master, "tern c hs", "", 32)   client Handshake epoch
 *   s_hs      = HKDF-Expand-Label(master, "tern s hs", "", 32)   server Handshake epoch
 *   c_ap      = HKDF-Expand-Label(master, "tern c ap", "", 32)   client 1-RTT, generation 0
 *   s_ap      = HKDF-Expand-Label(master, "tern s ap", "", 32)   server 1-RTT, generation 0
 *   res       = HKDF-Expand-Label(master, "tern res", "", 32)    resumption master secret
 * </pre>
 * Packet keys come from each secret with {@link KeyLabels#TERN_V1}. Every 1-RTT secret depends
 * on the ee DH, so 1-RTT data is forward secret.
 */
public final class HandshakeSecrets {
  static final String CLIENT_HANDSHAKE = "tern c hs";
  static final String SERVER_HANDSHAKE = "tern s hs";
  static final String CLIENT_1RTT = "tern c ap";
  static final String SERVER_1RTT = "tern s ap";
  static final String RESUMPTION = "tern res";
  static final String EARLY = "tern c e";
  static final String TICKET_PSK = "tern psk";
  private static final byte[] NONE = new byte[0];

  private final CryptoProvider provider;
  private final AeadAlgorithm aead;
  private final byte[] clientHandshake;
  private final byte[] serverHandshake;
  private final byte[] client1Rtt;
  private final byte[] server1Rtt;
  private final byte[] resumption;
  private final byte[] handshakeHash;

  private HandshakeSecrets(CryptoProvider provider, AeadAlgorithm aead, byte[] master,
      byte[] handshakeHash) {
    Hkdf hkdf = new Hkdf(provider);
    this.provider = provider;
    this.aead = aead;
    this.clientHandshake = hkdf.expandLabel(master, CLIENT_HANDSHAKE, NONE, 32);
    this.serverHandshake = hkdf.expandLabel(master, SERVER_HANDSHAKE, NONE, 32);
    this.client1Rtt = hkdf.expandLabel(master, CLIENT_1RTT, NONE, 32);
    this.server1Rtt = hkdf.expandLabel(master, SERVER_1RTT, NONE, 32);
    this.resumption = hkdf.expandLabel(master, RESUMPTION, NONE, 32);
    this.handshakeHash = handshakeHash;
  }

  /** The secrets of a finished handshake state. */
  static HandshakeSecrets of(CryptoProvider provider, AeadAlgorithm aead, HandshakeState state) {
    byte[][] k = state.splitKeys();
    byte[] ikm = new byte[64];
    System.arraycopy(k[0], 0, ikm, 0, 32);
    System.arraycopy(k[1], 0, ikm, 32, 32);
    byte[] h = state.handshakeHash();
    return new HandshakeSecrets(provider, aead, new Hkdf(provider).extract(h, ikm), h);
  }

  /**
   * The 0-RTT secret of an IKpsk2 ClientHello, from the state right after its first message
   * (chaining key ck1, hash h1): HKDF-Expand-Label(HKDF-Extract(salt = h1, IKM = ck1),
   * "tern c e", "", 32). Its secrecy rests on the es and ss DHs; it is not forward secret with
   * respect to the server's static key (as TLS 1.3's early data is not, RFC 8446 §2.3).
   */
  static byte[] early(CryptoProvider provider, HandshakeState afterMessage1) {
    Hkdf hkdf = new Hkdf(provider);
    byte[] prk = hkdf.extract(afterMessage1.handshakeHash(),
        afterMessage1.symmetric().chainingKey());
    return hkdf.expandLabel(prk, EARLY, NONE, 32);
  }

  /** The AEAD packets are protected with (the handshake's cipher). */
  public AeadAlgorithm aead() {
    return aead;
  }

  /** The final Noise handshake hash (for channel binding, Noise §11.2). */
  public byte[] handshakeHash() {
    return handshakeHash.clone();
  }

  /** The client's Handshake-epoch secret. */
  public byte[] clientHandshakeSecret() {
    return clientHandshake.clone();
  }

  /** The server's Handshake-epoch secret. */
  public byte[] serverHandshakeSecret() {
    return serverHandshake.clone();
  }

  /** The client's first 1-RTT secret. */
  public byte[] client1RttSecret() {
    return client1Rtt.clone();
  }

  /** The server's first 1-RTT secret. */
  public byte[] server1RttSecret() {
    return server1Rtt.clone();
  }

  /**
   * The PSK of a ticket issued on this connection: HKDF-Expand-Label(res, "tern psk",
   * ticketNonce, 32), the nonce being unique per ticket (as RFC 8446 §4.6.1's).
   */
  public byte[] ticketPsk(byte[] ticketNonce) {
    return new Hkdf(provider).expandLabel(resumption, TICKET_PSK, ticketNonce, 32);
  }

  /** The Handshake epoch's packet keys for the client ({@code client}) or the server. */
  public EpochPacketKeys handshakeKeys(boolean client) {
    return EpochPacketKeys.create(provider, aead, KeyLabels.TERN_V1,
        client ? serverHandshake : clientHandshake, client ? clientHandshake : serverHandshake);
  }

  /** The 1-RTT packet keys, with key update, for the client ({@code client}) or the server. */
  public OneRttPacketKeys oneRttKeys(boolean client) {
    return new OneRttPacketKeys(provider, aead, KeyLabels.TERN_V1,
        client ? server1Rtt : client1Rtt, client ? client1Rtt : server1Rtt);
  }

  /** 0-RTT packet keys from an early secret: send-only for the client, receive-only else. */
  public static EpochPacketKeys earlyDataKeys(CryptoProvider provider, AeadAlgorithm aead,
      byte[] earlySecret, boolean client) {
    return EpochPacketKeys.create(provider, aead, KeyLabels.TERN_V1,
        client ? null : earlySecret, client ? earlySecret : null);
  }
}
