package dev.tern.transport.udp.packet;

/** Wire versions of the protocol (docs/protocol.md §1). */
public final class Versions {
  /**
   * Version 1, {@code 0x544e0001}: plaintext (a CRC-32C trailer, no encryption, a plaintext
   * handshake). Neither offered nor accepted by default; it stays for tests that build it
   * explicitly (version negotiation, wire inspection).
   */
  public static final int V1 = 0x544e0001;

  /**
   * Version 2, {@code 0x544e0002}: version 1's packets and frames with AEAD packet and header
   * protection (RFC 9001 §5) and the Noise handshake in CRYPTO frames (docs/protocol.md §9). The
   * default.
   */
  public static final int V2 = 0x544e0002;

  /**
   * The first of the encrypted test versions {@code 0x544eff00..0x544effff} (docs/protocol.md
   * §3): version 2's wire format and handshake under other numbers, so that negotiation between
   * encrypted versions can be tested before a version 3 exists. Never offered or accepted unless
   * a configuration lists one.
   */
  public static final int ENCRYPTED_TEST_FIRST = 0x544eff00;

  /** Reserved for Version Negotiation packets. */
  public static final int NEGOTIATION = 0;

  private Versions() {}

  /**
   * The highest version present in both lists, or {@code 0} if none (a client's choice after a
   * Version Negotiation packet, docs/protocol.md §3).
   */
  public static int highestCommon(int[] ours, int[] theirs, int theirsCount) {
    int best = 0;
    boolean found = false;
    for (int v : ours) {
      for (int i = 0; i < theirsCount; i++) {
        if (theirs[i] == v && v != 0 && (!found || Integer.compareUnsigned(v, best) > 0)) {
          best = v;
          found = true;
        }
      }
    }
    return best;
  }

  /** Whether packets of {@code version} are encrypted (docs/protocol.md §9). */
  public static boolean isEncrypted(int version) {
    return version == V2 || isEncryptedTest(version);
  }

  /** Whether {@code version} is one of the encrypted test versions (docs/protocol.md §3). */
  public static boolean isEncryptedTest(int version) {
    return (version & 0xffffff00) == ENCRYPTED_TEST_FIRST;
  }

  /** Whether {@code version} is in {@code list}. */
  public static boolean contains(int[] list, int version) {
    for (int v : list) {
      if (v == version) {
        return true;
      }
    }
    return false;
  }
}
