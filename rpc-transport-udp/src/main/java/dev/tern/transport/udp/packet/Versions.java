package dev.tern.transport.udp.packet;

/** Wire versions of the protocol (docs/protocol.md §1). */
public final class Versions {
  /** Version 1, {@code 0x544e0001}. */
  public static final int V1 = 0x544e0001;

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
