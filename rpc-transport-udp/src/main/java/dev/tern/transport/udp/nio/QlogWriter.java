package dev.tern.transport.udp.nio;

import dev.tern.transport.udp.recovery.EventLog;
import java.io.BufferedWriter;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One connection's event log as a qlog file (draft-ietf-quic-qlog-main-schema, the streaming
 * "JSON-SEQ" serialization: RFC 7464 JSON text sequences, each record a record separator, a JSON
 * object and a line feed), which qvis and other qlog tools read: a header naming the connection
 * and the vantage point, then one record per event, times in milliseconds since the log began.
 * Events (docs/protocol.md §10.9): {@code transport:packet_sent}, {@code transport:packet_received},
 * {@code recovery:packet_lost} and {@code recovery:metrics_updated} with qlog's QUIC field names
 * (Tern's packets have QUIC's packet-number spaces and recovery), {@code tern:path_changed}
 * (the connection sends on another path, as the driver numbers paths) and {@code
 * connectivity:connection_closed}.
 *
 * <p>Written on the connection's loop thread into a 64 KiB buffer, flushed when the buffer fills
 * and when the log is closed. A write that fails ends the log with one WARNING; the connection
 * carries on. Off unless asked for ({@code UdpTransportOptions.QLOG_DIR}): a log costs a few
 * hundred bytes of file per packet.
 */
public final class QlogWriter implements EventLog, Closeable {
  private static final Logger log = Logger.getLogger(QlogWriter.class.getName());
  private static final char RS = 0x1e;
  private static final String[] PACKET_TYPES = {"initial", "handshake", "1RTT"};

  private final Path file;
  private final long startNs;
  /** The time of the last event written: times never go back (see {@link #begin}). */
  private long lastNs;
  private final StringBuilder sb = new StringBuilder(256);
  private char[] chars = new char[256];
  private BufferedWriter out;

  private QlogWriter(Path file, BufferedWriter out, long startNs) {
    this.file = file;
    this.out = out;
    this.startNs = startNs;
    this.lastNs = startNs;
  }

  /**
   * Opens {@code dir/<vantage>-<odcid>.sqlog} and writes the header.
   *
   * @param dir the directory, created if missing
   * @param client whether this end is the client
   * @param odcid the connection's original Destination Connection ID, in hex: both ends name the
   *     connection by it
   * @param nowNs the time the log begins ({@link System#nanoTime()} base)
   * @throws IOException if the file cannot be created
   */
  public static QlogWriter open(Path dir, boolean client, String odcid, long nowNs)
      throws IOException {
    Files.createDirectories(dir);
    Path file = dir.resolve((client ? "client-" : "server-") + odcid + ".sqlog");
    BufferedWriter out = new BufferedWriter(
        new OutputStreamWriter(Files.newOutputStream(file), StandardCharsets.UTF_8), 64 * 1024);
    QlogWriter w = new QlogWriter(file, out, nowNs);
    w.sb.append(RS).append("{\"qlog_version\":\"0.3\",\"qlog_format\":\"JSON-SEQ\",")
        .append("\"title\":\"tern udp connection ").append(odcid).append("\",")
        .append("\"trace\":{\"vantage_point\":{\"name\":\"tern\",\"type\":\"")
        .append(client ? "client" : "server").append("\"},\"common_fields\":{\"ODCID\":\"")
        .append(odcid).append("\",\"time_format\":\"relative\",\"reference_time\":")
        .append(System.currentTimeMillis()).append(",\"protocol_type\":[\"TERN_UDP\"]}}}\n");
    w.flushRecord();
    return w;
  }

  /** The file being written. */
  public Path file() {
    return file;
  }

  @Override
  public void packetSent(long nowNs, int space, long packetNumber, int bytes,
      boolean ackEliciting) {
    packet(nowNs, "transport:packet_sent", space, packetNumber, bytes);
  }

  @Override
  public void packetReceived(long nowNs, int space, long packetNumber, int bytes) {
    packet(nowNs, "transport:packet_received", space, packetNumber, bytes);
  }

  @Override
  public void packetLost(long nowNs, int space, long packetNumber, int bytes) {
    packet(nowNs, "recovery:packet_lost", space, packetNumber, bytes);
  }

  @Override
  public void metricsUpdated(long nowNs, long smoothedRttNs, long minRttNs, long latestRttNs,
      long congestionWindow, long bytesInFlight) {
    if (out == null) {
      return;
    }
    begin(nowNs, "recovery:metrics_updated");
    sb.append("\"smoothed_rtt\":");
    millis(smoothedRttNs);
    if (minRttNs != Long.MAX_VALUE) {
      sb.append(",\"min_rtt\":");
      millis(minRttNs);
    }
    sb.append(",\"latest_rtt\":");
    millis(latestRttNs);
    sb.append(",\"congestion_window\":").append(congestionWindow)
        .append(",\"bytes_in_flight\":").append(bytesInFlight).append("}}\n");
    flushRecord();
  }

  @Override
  public void pathChanged(long nowNs, long pathId, boolean validated) {
    if (out == null) {
      return;
    }
    begin(nowNs, "tern:path_changed");
    sb.append("\"path_id\":").append(pathId).append(",\"validated\":").append(validated)
        .append("}}\n");
    flushRecord();
  }

  /**
   * The connection closed ({@code connectivity:connection_closed}).
   *
   * @param byPeer whether the peer closed it
   * @param reason why, as the connection says it
   */
  public void closed(long nowNs, boolean byPeer, String reason) {
    if (out == null) {
      return;
    }
    begin(nowNs, "connectivity:connection_closed");
    sb.append("\"owner\":\"").append(byPeer ? "remote" : "local").append("\",\"reason\":\"");
    escape(reason == null ? "" : reason);
    sb.append("\"}}\n");
    flushRecord();
  }

  /** Flushes and closes the file; later events are dropped. */
  @Override
  public void close() {
    BufferedWriter w = out;
    out = null;
    if (w != null) {
      try {
        w.close();
      } catch (IOException e) {
        log.log(Level.WARNING, "qlog " + file + ": cannot close it", e);
      }
    }
  }

  private void packet(long nowNs, String name, int space, long packetNumber, int bytes) {
    if (out == null) {
      return;
    }
    begin(nowNs, name);
    sb.append("\"header\":{\"packet_type\":\"")
        .append(space >= 0 && space < PACKET_TYPES.length ? PACKET_TYPES[space] : "unknown")
        .append("\",\"packet_number\":").append(packetNumber).append("},\"raw\":{\"length\":")
        .append(bytes).append("}}}\n");
    flushRecord();
  }

  /**
   * Starts an event's record. The core stamps packets with the time of its loop's turn and the
   * close is stamped when it is reported, so an event can carry a time a little before the last
   * one written: it takes the last one's, and the log's times never go back.
   */
  private void begin(long nowNs, String name) {
    if (nowNs - lastNs < 0) {
      nowNs = lastNs;
    }
    lastNs = nowNs;
    sb.append(RS).append("{\"time\":");
    millis(nowNs - startNs);
    sb.append(",\"name\":\"").append(name).append("\",\"data\":{");
  }

  /** Appends {@code ns} as milliseconds with three decimals, without a floating-point format. */
  private void millis(long ns) {
    long us = Math.max(0, ns) / 1000;
    sb.append(us / 1000).append('.');
    long frac = us % 1000;
    if (frac < 100) {
      sb.append('0');
    }
    if (frac < 10) {
      sb.append('0');
    }
    sb.append(frac);
  }

  private void escape(String s) {
    for (int i = 0; i < s.length(); i++) {
      char ch = s.charAt(i);
      if (ch == '"' || ch == '\\') {
        sb.append('\\').append(ch);
      } else if (ch < 0x20) {
        sb.append(String.format("\\u%04x", (int) ch));
      } else {
        sb.append(ch);
      }
    }
  }

  private void flushRecord() {
    try {
      int n = sb.length();
      if (chars.length < n) {
        chars = new char[Math.max(n, 2 * chars.length)];
      }
      sb.getChars(0, n, chars, 0);
      out.write(chars, 0, n);
    } catch (IOException e) {
      log.log(Level.WARNING, "qlog " + file + ": cannot write it; the log ends here", e);
      close();
    } finally {
      sb.setLength(0);
    }
  }
}
