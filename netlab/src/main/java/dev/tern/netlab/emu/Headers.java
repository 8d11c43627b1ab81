package dev.tern.netlab.emu;

import java.nio.ByteBuffer;

/** Reads the fields the packet log shows from an IPv4 or IPv6 packet (RFC 791, 8200, 9293, 768). */
final class Headers {
  private Headers() {}

  /**
   * Whether the packet is UDP: IPv4 protocol 17 (RFC 791 §3.1, RFC 768) or IPv6 next header 17
   * (RFC 8200 §3; extension headers are not followed). Reads two bytes, allocates nothing.
   */
  static boolean isUdp(ByteBuffer p, int len) {
    int version = len > 0 ? (p.get(0) & 0xff) >>> 4 : 0;
    if (version == 4 && len >= 20) {
      return (p.get(9) & 0xff) == 17;
    }
    return version == 6 && len >= 40 && (p.get(6) & 0xff) == 17;
  }

  /** Appends {@code proto src sport dst dport flags payload}, tab-separated, to {@code sb}. */
  static void describe(ByteBuffer p, int len, StringBuilder sb) {
    int version = len > 0 ? (p.get(0) & 0xff) >>> 4 : 0;
    int proto;
    int l4;
    if (version == 4 && len >= 20) {
      l4 = (p.get(0) & 0x0f) * 4; // RFC 791 §3.1: IHL in 32-bit words
      proto = p.get(9) & 0xff;
      appendProto(sb, proto, "");
      ipv4(sb, p, 12);
      sb.append('\t');
      ports(sb, p, len, l4, proto, true);
      sb.append('\t');
      ipv4(sb, p, 16);
      sb.append('\t');
      ports(sb, p, len, l4, proto, false);
    } else if (version == 6 && len >= 40) {
      l4 = 40; // RFC 8200 §3: fixed header; extension headers are not followed
      proto = p.get(6) & 0xff;
      appendProto(sb, proto, proto == 6 || proto == 17 ? "" : "ipv6:");
      ipv6(sb, p, 8);
      sb.append('\t');
      ports(sb, p, len, l4, proto, true);
      sb.append('\t');
      ipv6(sb, p, 24);
      sb.append('\t');
      ports(sb, p, len, l4, proto, false);
    } else {
      sb.append("?\t-\t-\t-\t-\t-\t-");
      return;
    }
    sb.append('\t');
    if (proto == 6 && len >= l4 + 20) {
      int flags = p.get(l4 + 13) & 0xff; // RFC 9293 §3.1
      int start = sb.length();
      if ((flags & 0x02) != 0) sb.append('S');
      if ((flags & 0x10) != 0) sb.append('A');
      if ((flags & 0x01) != 0) sb.append('F');
      if ((flags & 0x04) != 0) sb.append('R');
      if ((flags & 0x08) != 0) sb.append('P');
      if (sb.length() == start) sb.append('-');
      int dataOffset = ((p.get(l4 + 12) & 0xff) >>> 4) * 4;
      sb.append('\t').append(Math.max(0, len - l4 - dataOffset));
    } else if (proto == 17 && len >= l4 + 8) {
      sb.append("-\t").append(len - l4 - 8); // RFC 768: 8-byte header
    } else {
      sb.append("-\t-");
    }
  }

  private static void appendProto(StringBuilder sb, int proto, String prefix) {
    switch (proto) {
      case 6 -> sb.append("tcp");
      case 17 -> sb.append("udp");
      case 1 -> sb.append("icmp");
      default -> sb.append(prefix).append(proto);
    }
    sb.append('\t');
  }

  private static void ports(StringBuilder sb, ByteBuffer p, int len, int l4, int proto, boolean src) {
    if ((proto == 6 || proto == 17) && len >= l4 + 4) {
      sb.append(p.getShort(l4 + (src ? 0 : 2)) & 0xffff);
    } else {
      sb.append('-');
    }
  }

  private static void ipv4(StringBuilder sb, ByteBuffer p, int at) {
    for (int i = 0; i < 4; i++) {
      if (i > 0) sb.append('.');
      sb.append(p.get(at + i) & 0xff);
    }
  }

  private static void ipv6(StringBuilder sb, ByteBuffer p, int at) {
    for (int i = 0; i < 8; i++) {
      if (i > 0) sb.append(':');
      sb.append(Integer.toHexString(p.getShort(at + 2 * i) & 0xffff));
    }
  }
}
