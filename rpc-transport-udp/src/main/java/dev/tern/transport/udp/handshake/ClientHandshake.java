package dev.tern.transport.udp.handshake;

import dev.tern.transport.udp.crypto.AeadAlgorithm;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;

/**
 * The client's side of Tern's handshake (docs/udp-crypto.md §5), sans-IO: Noise IK to a pinned
 * server key, or IKpsk2 with a ticket from an earlier connection. Use once per connection:
 * {@link #writeClientHello}, then {@link #readServerHello}, then {@link #secrets()}.
 */
public final class ClientHandshake {
  private final ClientHandshakeConfig config;
  private final PinnedServerKey serverKey;
  private final ResumptionTicket ticket;
  private final byte[] header;
  private final HandshakeState noise;
  private final byte[] staticPrivateKey;
  private byte[] earlySecret;
  private boolean helloWritten;
  private boolean failed;
  private HandshakeSecrets secrets;

  /**
   * A handshake to {@code serverKey} (one of the config's pinned keys).
   *
   * @param ticket a resumption ticket (IKpsk2, with 0-RTT keys), or null (IK)
   */
  public ClientHandshake(ClientHandshakeConfig config, HandshakeContext context,
      PinnedServerKey serverKey, ResumptionTicket ticket) {
    this(config, context, serverKey, ticket, null);
  }

  /** With a fixed ephemeral key: for the test vectors of docs/udp-crypto.md only. */
  ClientHandshake(ClientHandshakeConfig config, HandshakeContext context,
      PinnedServerKey serverKey, ResumptionTicket ticket, byte[] fixedEphemeral) {
    if (serverKey == null || config.pinned(serverKey.keyId()) == null) {
      throw new IllegalArgumentException("serverKey must be one of the pinned keys, got "
          + serverKey);
    }
    this.config = config;
    this.serverKey = serverKey;
    this.ticket = ticket;
    ByteArrayOutputStream h = new ByteArrayOutputStream();
    h.write(ticket == null ? TernHandshake.CLIENT_HELLO_IK : TernHandshake.CLIENT_HELLO_IKPSK2);
    h.write(TernHandshake.cipherCode(config.cipher()));
    h.write(serverKey.keyId());
    if (ticket != null) {
      byte[] id = ticket.ticketId();
      h.write(id.length);
      h.write(id, 0, id.length);
    }
    this.header = h.toByteArray();
    // A resumption uses the static key of the connection that earned the ticket: the server
    // checks it, so a ticket id seen on the wire is useless to anyone else.
    byte[] staticKey = ticket != null ? ticket.clientStaticKey()
        : config.clientStaticKey() != null ? config.clientStaticKey()
        : config.provider().x25519().generatePrivateKey(config.random());
    this.staticPrivateKey = staticKey.clone();
    this.noise = new HandshakeState(config.provider(),
        ticket == null ? HandshakePattern.IK : HandshakePattern.IKPSK2, config.cipher(), true,
        context.prologue(header), staticKey, serverKey.publicKey(),
        ticket == null ? null : ticket.psk(), fixedEphemeral, config.random());
  }

  /** A handshake to the most preferred pinned key. */
  public ClientHandshake(ClientHandshakeConfig config, HandshakeContext context,
      ResumptionTicket ticket) {
    this(config, context, config.pinnedKeys().get(0), ticket);
  }

  /**
   * Writes the ClientHello carrying {@code transportParameters} (encrypted under es and ss).
   *
   * @throws IllegalArgumentException if the message would exceed
   *     {@link TernHandshake#MAX_MESSAGE_BYTES}
   */
  public void writeClientHello(byte[] transportParameters, ByteBuffer out)
      throws HandshakeException {
    if (helloWritten) {
      throw new IllegalStateException("the ClientHello has already been written");
    }
    int size = header.length + 32 + 48 + transportParameters.length + AeadAlgorithm.TAG_BYTES;
    if (size > TernHandshake.MAX_MESSAGE_BYTES) {
      throw new IllegalArgumentException("transportParameters of " + transportParameters.length
          + " bytes make a " + size + "-byte ClientHello, over " + TernHandshake.MAX_MESSAGE_BYTES);
    }
    out.put(header);
    noise.writeMessage(transportParameters, out);
    helloWritten = true;
    if (ticket != null) {
      earlySecret = HandshakeSecrets.early(config.provider(), noise);
    }
  }

  /** The 0-RTT secret, once the ClientHello is written, if resuming; else null. */
  public byte[] earlySecret() {
    return earlySecret == null ? null : earlySecret.clone();
  }

  /**
   * The client static private key this handshake used: the configured one, or the fresh one of
   * an anonymous client. A ticket issued on this connection must be kept with it.
   */
  public byte[] staticPrivateKey() {
    return staticPrivateKey.clone();
  }

  /** The server key this handshake authenticates. */
  public PinnedServerKey serverKey() {
    return serverKey;
  }

  /**
   * Reads the ServerHello occupying {@code in} from its position to its limit.
   *
   * @return the server's transport parameters
   * @throws HandshakeException if the message is not the ServerHello this handshake expects;
   *     AUTHENTICATION_FAILED if it was not made by the holder of the pinned key or was altered
   */
  public byte[] readServerHello(ByteBuffer in) throws HandshakeException {
    if (secrets != null || !helloWritten || failed) {
      throw new HandshakeException(HandshakeError.UNEXPECTED_MESSAGE,
          secrets != null ? "a second ServerHello" : failed ? "the handshake has already failed"
              : "a ServerHello before the ClientHello");
    }
    failed = true; // a failure below is final: the connection closes

    if (in.remaining() < 1 || in.remaining() > TernHandshake.MAX_MESSAGE_BYTES) {
      throw new HandshakeException(HandshakeError.MALFORMED_MESSAGE,
          "ServerHello of " + in.remaining() + " bytes");
    }
    int type = in.get() & 0xff;
    if (type != TernHandshake.SERVER_HELLO) {
      throw new HandshakeException(HandshakeError.UNEXPECTED_MESSAGE,
          "expected a ServerHello (0x03), got message type 0x" + Integer.toHexString(type));
    }
    byte[] params;
    try {
      params = noise.readMessage(in);
    } catch (HandshakeException e) {
      if (e.error() == HandshakeError.AUTHENTICATION_FAILED) {
        throw new HandshakeException(e.error(), "the ServerHello does not authenticate with"
            + " pinned server key " + serverKey.keyId() + ": the server holds another key,"
            + " or the message was altered");
      }
      throw e;
    }
    secrets = HandshakeSecrets.of(config.provider(), config.cipher(), noise);
    noise.destroy();
    failed = false;
    return params;
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
