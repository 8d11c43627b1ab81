package dev.tern.transport.tcp;

import java.util.function.Predicate;
import java.util.logging.Filter;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Keeps the chatter of the grpc-java channels and servers inside this transport out of the
 * application's log: the few per-connection messages grpc-java prints at INFO (a stream's trailers
 * after the call layer already failed it, a client that spoke something other than HTTP/2) go to
 * {@code dev.tern.transport.tcp} at FINE instead, one line each. Only those messages of those
 * loggers are touched; a filter the application set on them still runs for everything else.
 */
final class QuietGrpcLogs {
  /** Where the moved messages go. */
  static final Logger TERN = Logger.getLogger("dev.tern.transport.tcp");
  // Held strongly: java.util.logging keeps loggers weakly and would drop the filters with them.
  private static final Logger CLIENT_STREAM = Logger.getLogger("io.grpc.internal.AbstractClientStream");
  private static final java.util.logging.Formatter FORMAT = new java.util.logging.SimpleFormatter();
  private static final Logger SERVER_CONNECTIONS = Logger.getLogger("io.grpc.netty.NettyServerTransport.connections");

  static {
    // After a call fails in Tern's call layer (RESOURCE_EXHAUSTED for a too-large message, say),
    // grpc-java still hears the server's trailers for the stream it already closed.
    quiet(CLIENT_STREAM, r -> startsWith(r, "Received trailers on closed stream"));
    // A client that is not HTTP/2 (TLS to a plaintext port, a port scanner): the client is told.
    quiet(SERVER_CONNECTIONS, r -> startsWith(r, "Transport failed"));
  }

  private QuietGrpcLogs() {}

  /** Installs the filters once (class initialisation does it). */
  static void install() {}

  private static boolean startsWith(LogRecord r, String prefix) {
    return r.getMessage() != null && r.getMessage().startsWith(prefix) && r.getLevel().intValue() <= Level.INFO.intValue();
  }

  private static void quiet(Logger logger, Predicate<LogRecord> noise) {
    Filter previous = logger.getFilter();
    logger.setFilter(r -> {
      if (noise.test(r)) {
        if (TERN.isLoggable(Level.FINE)) {
          TERN.log(Level.FINE, "{0}: {1}{2}", new Object[] {r.getLoggerName(), oneLine(FORMAT.formatMessage(r)),
              r.getThrown() == null ? "" : " (" + oneLine(String.valueOf(r.getThrown())) + ")"});
        }
        return false;
      }
      return previous == null || previous.isLoggable(r);
    });
  }

  private static String oneLine(String s) {
    return s == null ? "" : s.replace('\n', ' ').replace('\r', ' ');
  }
}
