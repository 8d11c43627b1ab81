package dev.tern.transport.udp.handshake;

import dev.tern.transport.udp.crypto.AeadAlgorithm;
import dev.tern.transport.udp.util.Buffers;
import java.nio.ByteBuffer;
import java.security.MessageDigest;

/**
 * The server's side of Tern's handshake (docs/udp-crypto.md §5), sans-IO: reads a ClientHello
 * (Noise IK, or IKpsk2 with a ticket), checks the key id, ticket and client key, and writes the
 * ServerHello. Use once per connection.
 */
public final class ServerHandshake {
  private final ServerHandshakeConfig config;
  private final HandshakeContext context;
  private HandshakeState noise;
  private AeadAlgorithm cipher;
  private int keyId = -1;
  private boolean resumed;
  private byte[] earlySecret;
  private TicketStore.Stored resumedTicket;
  private boolean ticketReused;
  private byte[] clientStaticKey;
  private HandshakeSecrets secrets;
  private boolean failed;
  private byte[] fixedEphemeral;

  /** A handshake for the connection {@code context} describes. */
  public ServerHandshake(ServerHandshakeConfig config, HandshakeContext context) {
    this.config = config;
    this.context = context;
  }

  /** With a fixed ephemeral key: for the test vectors of docs/udp-crypto.md only. */
  ServerHandshake(ServerHandshakeConfig config, HandshakeContext context, byte[] fixedEphemeral) {
    this(config, context);
    this.fixedEphemeral = fixedEphemeral.clone();
  }

  /**
   * Reads the ClientHello occupying {@code in} from its position to its limit.
   *
   * @return the client's transport parameters
   * @throws HandshakeException for any fault: MALFORMED_MESSAGE, UNEXPECTED_MESSAGE (a second
   *     ClientHello), NO_COMMON_CIPHER, UNKNOWN_SERVER_KEY, UNKNOWN_TICKET,
   *     AUTHENTICATION_FAILED (altered, or sealed for another key), CLIENT_NOT_ALLOWED
   */
  public byte[] readClientHello(ByteBuffer in) throws HandshakeException {
    if (noise != null || failed) {
      throw new HandshakeException(HandshakeError.UNEXPECTED_MESSAGE,
          "a second ClientHello on one connection");
    }
    failed = true; // until this one has been read in full
    int start = in.position();
    if (in.remaining() < 4 || in.remaining() > TernHandshake.MAX_MESSAGE_BYTES) {
      throw new HandshakeException(HandshakeError.MALFORMED_MESSAGE,
          "ClientHello of " + in.remaining() + " bytes");
    }
    int type = in.get() & 0xff;
    if (type != TernHandshake.CLIENT_HELLO_IK && type != TernHandshake.CLIENT_HELLO_IKPSK2) {
      throw new HandshakeException(HandshakeError.UNEXPECTED_MESSAGE,
          "expected a ClientHello (0x01 or 0x02), got message type 0x"
              + Integer.toHexString(type));
    }
    cipher = TernHandshake.cipherOf(in.get() & 0xff);
    if (!config.ciphers().contains(cipher)) {
      throw new HandshakeException(HandshakeError.NO_COMMON_CIPHER,
          "cipher " + cipher + " is not one of " + config.ciphers());
    }
    keyId = in.get() & 0xff;
    ServerStaticKey key = config.key(keyId);
    if (key == null) {
      throw new HandshakeException(HandshakeError.UNKNOWN_SERVER_KEY, "the client asked for"
          + " server key id " + keyId + ", which this server does not hold");
    }
    byte[] ticketId = null;
    TicketStore.Stored ticket = null;
    if (type == TernHandshake.CLIENT_HELLO_IKPSK2) {
      int len = in.get() & 0xff;
      if (len == 0 || len > in.remaining()) {
        throw new HandshakeException(HandshakeError.MALFORMED_MESSAGE,
            "ticket id of " + len + " bytes with " + in.remaining() + " bytes left");
      }
      ticketId = new byte[len];
      in.get(ticketId);
      ticket = config.tickets() == null ? null : config.tickets().find(ticketId);
      if (ticket == null) {
        throw new HandshakeException(HandshakeError.UNKNOWN_TICKET,
            "unknown or expired resumption ticket");
      }
    }
    byte[] header = new byte[in.position() - start];
    Buffers.get(in, start, header);
    noise = new HandshakeState(config.provider(),
        ticket == null ? HandshakePattern.IK : HandshakePattern.IKPSK2, cipher, false,
        context.prologue(header), key.privateKey(), null, ticket == null ? null : ticket.psk(),
        fixedEphemeral, config.random());
    byte[] params;
    try {
      params = noise.readMessage(in);
    } catch (HandshakeException e) {
      if (e.error() == HandshakeError.AUTHENTICATION_FAILED) {
        throw new HandshakeException(e.error(), "the ClientHello does not decrypt with server"
            + " key " + keyId + ": the client pinned another key for this id, or the message"
            + " was altered");
      }
      throw e;
    }
    clientStaticKey = noise.remoteStaticKey();
    if (ticket != null) {
      if (!MessageDigest.isEqual(clientStaticKey, ticket.clientStaticPublicKey())) {
        throw new HandshakeException(HandshakeError.UNKNOWN_TICKET,
            "the resumption ticket was issued to another client key");
      }
      // RFC 8446 §8: early data is single use. A ticket already consumed here (a replayed
      // ClientHello, or a strike register too full to remember another) still authenticates the
      // handshake, which completes in 1-RTT; its early data is refused (ticketReused). A replayer
      // gains nothing: it cannot read the ServerHello, sealed to the client's ephemeral key.
      ticketReused = !config.tickets().consume(ticketId);
      resumed = true;
      resumedTicket = ticket;
      earlySecret = HandshakeSecrets.early(config.provider(), noise);
    }
    if (config.clientAllowed() != null && !config.clientAllowed().test(clientStaticKey.clone())) {
      throw new HandshakeException(HandshakeError.CLIENT_NOT_ALLOWED,
          "this server does not admit the client's static key");
    }
    failed = false;
    return params;
  }

  /** Whether the client resumed with a ticket (then {@link #earlySecret()} is set). */
  public boolean resumed() {
    return resumed;
  }

  /**
   * The ticket a resumed ClientHello named, as the store found it (for its early-data checks,
   * {@link TicketStore#earlyDataFresh}); null if the client did not resume.
   */
  public TicketStore.Stored resumedTicket() {
    return resumedTicket;
  }

  /**
   * Whether the resumed ClientHello's ticket had been consumed before (a replay, or a strike
   * register that could not record it): the handshake completes, its early data must be refused.
   */
  public boolean ticketReused() {
    return ticketReused;
  }

  /** The 0-RTT secret of a resumed ClientHello, else null. */
  public byte[] earlySecret() {
    return earlySecret == null ? null : earlySecret.clone();
  }

  /** The client's static public key (its identity, if it authenticates), once read. */
  public byte[] clientStaticKey() {
    return clientStaticKey == null ? null : clientStaticKey.clone();
  }

  /** The server key id the client chose, once read, else -1. */
  public int keyId() {
    return keyId;
  }

  /** The cipher the client chose, once read. */
  public AeadAlgorithm cipher() {
    return cipher;
  }

  /** Writes the ServerHello carrying {@code transportParameters}; the handshake then ends. */
  public void writeServerHello(byte[] transportParameters, ByteBuffer out)
      throws HandshakeException {
    if (noise == null || failed || secrets != null) {
      throw new IllegalStateException("a ServerHello needs one successfully read ClientHello");
    }
    int size = 1 + 32 + transportParameters.length + AeadAlgorithm.TAG_BYTES;
    if (size > TernHandshake.MAX_MESSAGE_BYTES) {
      throw new IllegalArgumentException("transportParameters of " + transportParameters.length
          + " bytes make a " + size + "-byte ServerHello, over " + TernHandshake.MAX_MESSAGE_BYTES);
    }
    out.put((byte) TernHandshake.SERVER_HELLO);
    noise.writeMessage(transportParameters, out);
    secrets = HandshakeSecrets.of(config.provider(), cipher, noise);
    noise.destroy();
  }

  /** Whether the handshake has finished. */
  public boolean isFinished() {
    return secrets != null;
  }

  /** The exported secrets of the finished handshake. */
  public HandshakeSecrets secrets() {
    if (secrets == null) {
      throw new IllegalStateException("the handshake has not finished");
    }
    return secrets;
  }
}
