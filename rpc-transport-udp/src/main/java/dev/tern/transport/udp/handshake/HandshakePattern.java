package dev.tern.transport.udp.handshake;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The Noise handshake patterns Tern uses (Noise revision 34 §7.5, §7.6 and §9.4), as token lists.
 * Tokens: {@code e}, {@code s}, the DH tokens {@code ee es se ss}, and {@code psk}.
 */
public enum HandshakePattern {
  /**
   * IK (§7.5): {@code <- s ... -> e, es, s, ss; <- e, ee, se}. The client knows the server's
   * static key in advance (pinned) and sends its own, encrypted, in the first message.
   */
  IK("IK", false, true, Arrays.asList(Arrays.asList(Token.E, Token.ES, Token.S, Token.SS),
      Arrays.asList(Token.E, Token.EE, Token.SE))),
  /**
   * IKpsk2 (§9.4): IK with a pre-shared key mixed at the end of the second message; Tern's
   * resumption, the PSK coming from an earlier connection's ticket.
   */
  IKPSK2("IKpsk2", false, true, Arrays.asList(Arrays.asList(Token.E, Token.ES, Token.S, Token.SS),
      Arrays.asList(Token.E, Token.EE, Token.SE, Token.PSK))),
  /**
   * XX (§7.5): {@code -> e; <- e, ee, s, es; -> s, se}. Neither side knows the other's key in
   * advance: for a server key learned from an advertisement that is checked afterwards.
   */
  XX("XX", false, false, Arrays.asList(Arrays.asList(Token.E),
      Arrays.asList(Token.E, Token.EE, Token.S, Token.ES), Arrays.asList(Token.S, Token.SE)));

  /** A token of a message pattern (Noise §7.1). */
  enum Token { E, S, EE, ES, SE, SS, PSK }

  private final String noiseName;
  private final boolean initiatorStaticPreMessage;
  private final boolean responderStaticPreMessage;
  private final List<List<Token>> messages;

  HandshakePattern(String noiseName, boolean initiatorStaticPreMessage,
      boolean responderStaticPreMessage, List<List<Token>> messages) {
    this.noiseName = noiseName;
    this.initiatorStaticPreMessage = initiatorStaticPreMessage;
    this.responderStaticPreMessage = responderStaticPreMessage;
    // Arrays.asList above (List.of is Java 9, which Android API level 26 lacks), read-only here.
    List<List<Token>> m = new ArrayList<>();
    for (List<Token> message : messages) {
      m.add(Collections.unmodifiableList(message));
    }
    this.messages = Collections.unmodifiableList(m);
  }

  /** The pattern's name in a Noise protocol name ("IK", "IKpsk2", "XX"). */
  public String noiseName() {
    return noiseName;
  }

  boolean initiatorStaticPreMessage() {
    return initiatorStaticPreMessage;
  }

  boolean responderStaticPreMessage() {
    return responderStaticPreMessage;
  }

  List<List<Token>> messages() {
    return messages;
  }

  /** Whether a psk token appears (Noise §9.2: then "e" also mixes the key). */
  boolean hasPsk() {
    return messages.stream().anyMatch(m -> m.contains(Token.PSK));
  }

  /** The pattern called {@code name} in a Noise protocol name. */
  public static HandshakePattern ofNoiseName(String name) {
    for (HandshakePattern p : values()) {
      if (p.noiseName.equals(name)) {
        return p;
      }
    }
    throw new IllegalArgumentException("unsupported Noise pattern: " + name
        + " (expected IK, IKpsk2 or XX)");
  }
}
