package dev.tern.transport.quic;

import io.grpc.Status;
import dev.tern.rpc.ProtocolVersions;

/**
 * The Tern protocol versions a side speaks, carried in one HTTP/3 SETTINGS parameter.
 *
 * <p>RFC 9114 §7.2.4.1: a peer ignores setting identifiers it does not know, so a stock HTTP/3
 * gRPC peer is unaffected. The value is a bit set: bit {@code v - 1} stands for version {@code v}
 * (versions 1 to 62 fit a QUIC varint, RFC 9000 §16). Both sides send theirs on the control
 * stream; each then uses the highest version in both sets. A peer whose SETTINGS lack the
 * parameter is taken to speak version 1 (plain gRPC over HTTP/3).
 */
final class TernVersions {
  /**
   * The SETTINGS identifier: a value in the space RFC 9114 §11.2.2 leaves to private use (not of
   * the reserved 0x1f * N + 0x21 grease form).
   */
  static final long SETTING_ID = 0x7465726eL; // "tern"

  /** Versions assumed for a peer that does not send the setting. */
  static final long PLAIN_GRPC = 1L;

  private TernVersions() {}

  /**
   * The bit set of {@code versions}.
   *
   * @throws IllegalArgumentException naming a version outside 1..62
   */
  static long toBits(int[] versions) {
    if (versions == null || versions.length == 0) {
      throw new IllegalArgumentException("protocolVersions must name at least one version");
    }
    long bits = 0;
    for (int v : versions) {
      if (v < 1 || v > 62) {
        throw new IllegalArgumentException("protocol version must be in 1..62, was " + v);
      }
      bits |= 1L << (v - 1);
    }
    return bits;
  }

  /** The versions of a bit set, highest first. */
  static int[] fromBits(long bits) {
    int[] out = new int[Long.bitCount(bits & ((1L << 62) - 1))];
    int i = 0;
    for (int v = 62; v >= 1; v--) {
      if ((bits & (1L << (v - 1))) != 0) {
        out[i++] = v;
      }
    }
    return out;
  }

  /** The highest version in both sets, or 0 when there is none. */
  static int highestCommon(long ours, long theirs) {
    long common = ours & theirs & ((1L << 62) - 1);
    return common == 0 ? 0 : 64 - Long.numberOfLeadingZeros(common);
  }

  /** The status a client reports when the sets do not meet (the call layer's wording). */
  static Status noCommonVersion(long clientBits, long serverBits) {
    return ProtocolVersions.noCommonVersion(fromBits(clientBits), fromBits(serverBits));
  }
}
