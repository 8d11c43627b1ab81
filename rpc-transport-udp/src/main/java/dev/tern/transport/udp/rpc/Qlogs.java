package dev.tern.transport.udp.rpc;

import dev.tern.rpc.spi.TransportOptions;
import dev.tern.transport.udp.connection.Connection;
import dev.tern.transport.udp.nio.QlogWriter;
import java.io.IOException;
import java.nio.file.Path;
import java.util.logging.Level;
import java.util.logging.Logger;

/** Opens a connection's qlog file when {@link UdpTransportOptions#QLOG_DIR} asks for one. */
final class Qlogs {
  private static final Logger log = Logger.getLogger(Qlogs.class.getName());

  private Qlogs() {}

  /**
   * Starts {@code c}'s event log in the options' directory; null without a directory, or when the
   * file cannot be created (said once per connection at WARNING: the connection runs unlogged).
   * On the connection's thread, before its first packet.
   */
  static QlogWriter open(TransportOptions options, Connection c, boolean client, long nowNs) {
    Path dir = options.get(UdpTransportOptions.QLOG_DIR);
    if (dir == null) {
      return null;
    }
    try {
      QlogWriter w = QlogWriter.open(dir, client, c.originalDestinationConnectionId().toString(),
          nowNs);
      c.setEventLog(w);
      return w;
    } catch (IOException | RuntimeException e) {
      log.log(Level.WARNING, "cannot write a qlog file in " + dir + "; the connection runs without", e);
      return null;
    }
  }
}
