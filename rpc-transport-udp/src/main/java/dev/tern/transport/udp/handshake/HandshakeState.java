package dev.tern.transport.udp.handshake;

import dev.tern.transport.udp.crypto.AeadAlgorithm;
import dev.tern.transport.udp.crypto.CryptoProvider;
import dev.tern.transport.udp.crypto.X25519;
import dev.tern.transport.udp.handshake.HandshakePattern.Token;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.List;

/**
 * Noise's HandshakeState (Noise revision 34 §5.3) for {@code Noise_<pattern>_25519_<cipher>_SHA256},
 * sans-IO: {@link #writeMessage} writes into a caller's buffer and {@link #readMessage} reads one
 * whole message from one. Any failure of a peer's message is a {@link HandshakeException}, after
 * which the state must be discarded (§5.3: a failed handshake is not retried). Not thread-safe.
 */
public final class HandshakeState {
  /** §3: the longest Noise message. */
  public static final int MAX_MESSAGE_BYTES = 65535;
  private static final int DH_LEN = X25519.KEY_BYTES;

  private final HandshakePattern pattern;
  private final boolean initiator;
  private final SymmetricState symmetric;
  private final X25519 dh;
  private final SecureRandom random;
  private final byte[] psk;
  private byte[] s;
  private byte[] sPublic;
  private byte[] e;
  private byte[] ePublic;
  private byte[] rs;
  private byte[] re;
  private int messageIndex;
  private boolean failed;

  /**
   * §5.3 Initialize(). Keys are 32-byte X25519 keys.
   *
   * @param prologue data both sides must agree on (Noise §6), mixed into h first
   * @param staticPrivateKey our static key, or null if the pattern sends none
   * @param remoteStaticKey the peer's static public key if known in advance (IK's responder key)
   * @param psk the 32-byte pre-shared key for a psk pattern, else null
   * @param ephemeralPrivateKey a fixed ephemeral key (test vectors only), or null for a fresh one
   */
  public HandshakeState(CryptoProvider provider, HandshakePattern pattern, AeadAlgorithm cipher,
      boolean initiator, byte[] prologue, byte[] staticPrivateKey, byte[] remoteStaticKey,
      byte[] psk, byte[] ephemeralPrivateKey, SecureRandom random) {
    if (pattern.hasPsk() != (psk != null) || (psk != null && psk.length != 32)) {
      throw new IllegalArgumentException("psk must be 32 bytes for " + pattern.noiseName()
          + " and absent otherwise, got " + (psk == null ? "none" : psk.length + " bytes"));
    }
    this.pattern = pattern;
    this.initiator = initiator;
    this.dh = provider.x25519();
    this.random = random;
    this.psk = psk == null ? null : psk.clone();
    this.symmetric = new SymmetricState(provider, cipher, protocolName(pattern, cipher));
    if (staticPrivateKey != null) {
      s = staticPrivateKey.clone();
      sPublic = dh.publicKey(s);
    }
    rs = remoteStaticKey == null ? null : remoteStaticKey.clone();
    if (ephemeralPrivateKey != null) {
      e = ephemeralPrivateKey.clone();
    }
    symmetric.mixHash(prologue);
    // §7.1: pre-message public keys are hashed, initiator's first.
    if (pattern.initiatorStaticPreMessage()) {
      symmetric.mixHash(initiator ? require(sPublic, "our static key") : require(rs, "rs"));
    }
    if (pattern.responderStaticPreMessage()) {
      symmetric.mixHash(initiator ? require(rs, "the responder's static key")
          : require(sPublic, "our static key"));
    }
  }

  private static byte[] require(byte[] key, String what) {
    if (key == null) {
      throw new IllegalArgumentException("the pattern needs " + what + " in advance");
    }
    return key;
  }

  /** The Noise protocol name, e.g. {@code Noise_IK_25519_ChaChaPoly_SHA256} (§8). */
  public static String protocolName(HandshakePattern pattern, AeadAlgorithm cipher) {
    return "Noise_" + pattern.noiseName() + "_25519_" + cipher.noiseName() + "_SHA256";
  }

  /** Whether it is our turn to write. */
  public boolean isMyTurn() {
    return !isFinished() && !failed && (messageIndex % 2 == 0) == initiator;
  }

  /** Whether every handshake message has been written or read. */
  public boolean isFinished() {
    return messageIndex == pattern.messages().size();
  }

  /** The peer's static public key, once received or if known in advance. */
  public byte[] remoteStaticKey() {
    return rs == null ? null : rs.clone();
  }

  /** §5.2 GetHandshakeHash(): binds everything so far (for channel binding, §11.2). */
  public byte[] handshakeHash() {
    return symmetric.handshakeHash();
  }

  SymmetricState symmetric() {
    return symmetric;
  }

  private void dh(byte[] priv, byte[] pub) throws HandshakeException {
    byte[] out = new byte[DH_LEN];
    if (!dh.agree(priv, pub, out)) {
      throw new HandshakeException(HandshakeError.BAD_PUBLIC_KEY,
          "the peer's X25519 public key is of low order");
    }
    symmetric.mixKey(out);
  }

  private void dhToken(Token t) throws HandshakeException {
    // §5.3: ee = DH(e, re); es = DH(e, rs) as initiator, DH(s, re) as responder; se the reverse.
    switch (t) {
      case EE: dh(e, re); break;
      case ES: if (initiator) { dh(e, rs); } else { dh(s, re); } break;
      case SE: if (initiator) { dh(s, re); } else { dh(e, rs); } break;
      case SS: dh(s, rs); break;
      default: throw new AssertionError(t);
    }
  }

  /**
   * §5.3 WriteMessage(payload, message_buffer): writes the next handshake message into
   * {@code out} from its position.
   *
   * @throws IllegalStateException if it is not our turn
   * @throws java.nio.BufferOverflowException if {@code out} is too small
   */
  public void writeMessage(byte[] payload, ByteBuffer out) throws HandshakeException {
    if (!isMyTurn()) {
      throw new IllegalStateException("not our turn to write (message " + messageIndex + ")");
    }
    List<Token> tokens = pattern.messages().get(messageIndex);
    for (Token t : tokens) {
      switch (t) {
        case E:
          if (e == null) {
            e = dh.generatePrivateKey(random);
          }
          ePublic = dh.publicKey(e);
          out.put(ePublic);
          symmetric.mixHash(ePublic);
          if (pattern.hasPsk()) {
            symmetric.mixKey(ePublic); // §9.2
          }
          break;
        case S:
          out.put(symmetric.encryptAndHash(require(sPublic, "our static key")));
          break;
        case PSK:
          symmetric.mixKeyAndHash(psk);
          break;
        default:
          dhToken(t);
      }
    }
    out.put(symmetric.encryptAndHash(payload));
    messageIndex++;
  }

  /**
   * §5.3 ReadMessage(message, payload_buffer): reads the whole remaining content of {@code in}
   * as the next handshake message.
   *
   * @return the decrypted payload
   * @throws HandshakeException on any fault of the message: UNEXPECTED_MESSAGE when none is
   *     expected (a replay), MALFORMED_MESSAGE when too short, AUTHENTICATION_FAILED when it does
   *     not decrypt, BAD_PUBLIC_KEY for a low-order key
   */
  public byte[] readMessage(ByteBuffer in) throws HandshakeException {
    if (failed) {
      throw new HandshakeException(HandshakeError.UNEXPECTED_MESSAGE,
          "the handshake has already failed");
    }
    if (isFinished() || isMyTurn()) {
      throw new HandshakeException(HandshakeError.UNEXPECTED_MESSAGE,
          "no handshake message expected from the peer now (message " + messageIndex + ")");
    }
    if (in.remaining() > MAX_MESSAGE_BYTES) {
      throw fail(HandshakeError.MALFORMED_MESSAGE, "message of " + in.remaining()
          + " bytes exceeds " + MAX_MESSAGE_BYTES);
    }
    try {
      for (Token t : pattern.messages().get(messageIndex)) {
        switch (t) {
          case E:
            re = take(in, DH_LEN);
            symmetric.mixHash(re);
            if (pattern.hasPsk()) {
              symmetric.mixKey(re);
            }
            break;
          case S:
            rs = symmetric.decryptAndHash(
                take(in, DH_LEN + (symmetric.hasKey() ? AeadAlgorithm.TAG_BYTES : 0)));
            break;
          case PSK:
            symmetric.mixKeyAndHash(psk);
            break;
          default:
            dhToken(t);
        }
      }
      byte[] rest = new byte[in.remaining()];
      in.get(rest);
      byte[] payload = symmetric.decryptAndHash(rest);
      messageIndex++;
      return payload;
    } catch (HandshakeException ex) {
      failed = true;
      throw ex;
    }
  }

  private byte[] take(ByteBuffer in, int n) throws HandshakeException {
    try {
      byte[] b = new byte[n];
      in.get(b);
      return b;
    } catch (BufferUnderflowException ex) {
      throw fail(HandshakeError.MALFORMED_MESSAGE, "handshake message " + messageIndex
          + " is truncated: " + n + " bytes needed, " + in.remaining() + " left");
    }
  }

  private HandshakeException fail(HandshakeError error, String message) {
    failed = true;
    return new HandshakeException(error, message);
  }

  /**
   * §5.2 Split() once the handshake is finished: the transport CipherStates, initiator to
   * responder first.
   */
  public CipherState[] split() {
    if (!isFinished()) {
      throw new IllegalStateException("the handshake is not finished");
    }
    return symmetric.split();
  }

  /** The raw keys Split() would give (docs/udp-crypto.md §6 turns them into secrets). */
  byte[][] splitKeys() {
    if (!isFinished()) {
      throw new IllegalStateException("the handshake is not finished");
    }
    return symmetric.splitKeys();
  }

  /** Wipes our private keys. */
  public void destroy() {
    for (byte[] k : new byte[][] {s, e}) {
      if (k != null) {
        Arrays.fill(k, (byte) 0);
      }
    }
  }
}
