package dev.tern.netlab.emu;

import dev.tern.netlab.link.Delivery;
import java.io.BufferedWriter;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A tab-separated log of every packet that enters the emulated link, one line per packet:
 *
 * <pre>
 * t_ms  dir  bytes  verdict  deliver_ms  proto  src  sport  dst  dport  flags  payload
 * </pre>
 *
 * {@code t_ms} is the arrival time and {@code deliver_ms} the delivery time of the first copy
 * ({@code -} when dropped), both in milliseconds since the emulator started; {@code dir} is
 * {@code c2s} or {@code s2c}; {@code verdict} is {@code ok}, {@code dup}, or the drop reason
 * ({@code QUEUE_FULL}, {@code RANDOM_LOSS}, {@code BURST_LOSS}), or {@code UDP_BLOCKED} for a UDP
 * packet dropped before the link while UDP is blocked, with {@code +corrupt} and
 * {@code +reorder} appended when they apply; {@code proto} is {@code tcp}, {@code udp},
 * {@code icmp}, the IP protocol number, or {@code ipv6:<next header>}; {@code flags} are TCP
 * flags as letters ({@code S} SYN, {@code A} ACK, {@code F} FIN, {@code R} RST, {@code P} PSH)
 * or {@code -}; {@code payload} is the TCP/UDP payload length. Lines starting with {@code #} are
 * comments. Shared by both directions; each line is written under a lock.
 */
final class PacketLog implements Closeable {
  private final BufferedWriter out;
  private final long startNs;
  private final StringBuilder line = new StringBuilder(160);
  private char[] chars = new char[256];

  PacketLog(Path file, long startNs) {
    try {
      this.out = Files.newBufferedWriter(file, StandardCharsets.US_ASCII);
      out.write("# t_ms\tdir\tbytes\tverdict\tdeliver_ms\tproto\tsrc\tsport\tdst\tdport\tflags\tpayload\n");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write packet log " + file, e);
    }
    this.startNs = startNs;
  }

  synchronized void record(long nowNs, String dir, ByteBuffer pkt, int len, int copies, Delivery d) {
    StringBuilder sb = line;
    sb.setLength(0);
    ms(sb, nowNs - startNs).append('\t').append(dir).append('\t').append(len).append('\t');
    sb.append(copies == 0 ? d.dropReason().name() : copies == 2 ? "dup" : "ok");
    if (copies > 0 && (d.corrupted(0) || (copies == 2 && d.corrupted(1)))) {
      sb.append("+corrupt");
    }
    if (d.reordered()) {
      sb.append("+reorder");
    }
    sb.append('\t');
    if (copies > 0) {
      ms(sb, d.deliverAtNs(0) - startNs);
    } else {
      sb.append('-');
    }
    sb.append('\t');
    Headers.describe(pkt, len, sb);
    sb.append('\n');
    write(sb);
  }

  /** Logs a packet dropped before the link because UDP is blocked (verdict {@code UDP_BLOCKED}). */
  synchronized void recordBlocked(long nowNs, String dir, ByteBuffer pkt, int len) {
    StringBuilder sb = line;
    sb.setLength(0);
    ms(sb, nowNs - startNs).append('\t').append(dir).append('\t').append(len).append("\tUDP_BLOCKED\t-\t");
    Headers.describe(pkt, len, sb);
    sb.append('\n');
    write(sb);
  }

  private void write(StringBuilder sb) {
    if (chars.length < sb.length()) {
      chars = new char[sb.length() * 2];
    }
    sb.getChars(0, sb.length(), chars, 0);
    try {
      out.write(chars, 0, sb.length());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write packet log", e);
    }
  }

  private static StringBuilder ms(StringBuilder sb, long ns) {
    long us = ns / 1000;
    sb.append(us / 1000).append('.');
    long frac = Math.abs(us % 1000);
    if (frac < 100) {
      sb.append('0');
    }
    if (frac < 10) {
      sb.append('0');
    }
    return sb.append(frac);
  }

  synchronized void flush() {
    try {
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot flush packet log", e);
    }
  }

  @Override
  public synchronized void close() {
    try {
      out.close();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot close packet log", e);
    }
  }
}
