package dev.tern.rpc.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Filter;
import java.util.logging.Formatter;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * Moves particular messages of the libraries a transport runs on (grpc-java, Netty) from the
 * application's log to a Tern logger at {@code FINE}, one line each: per-connection events the
 * library prints at INFO or WARNING that Tern already reports to the caller, or that say nothing an
 * application can act on. Only the named messages of the named loggers are touched; a filter
 * already set on such a logger still sees everything else.
 */
public final class LogNoise {
  private static final Formatter FORMAT = new SimpleFormatter();
  // Held strongly: java.util.logging keeps loggers weakly and would drop the filters with them.
  private static final List<Logger> QUIETED = new ArrayList<>();

  private LogNoise() {}

  /**
   * From now on, records of {@code loggerName} at INFO or WARNING whose message starts with {@code
   * messagePrefix} go to {@code to} at FINE (message, and the exception's one-line summary).
   * Calling it again for the same logger adds another prefix; the earlier ones stay demoted.
   *
   * @param loggerName the library logger's name, such as {@code "io.netty.handler.ssl"}
   * @param messagePrefix the start of the raw (unformatted) messages to demote
   * @param to the Tern logger that receives them at FINE
   */
  public static synchronized void demote(String loggerName, String messagePrefix, Logger to) {
    Logger logger = Logger.getLogger(loggerName);
    QUIETED.add(logger);
    Filter previous = logger.getFilter();
    logger.setFilter(r -> {
      if (r.getLevel().intValue() <= Level.WARNING.intValue() && r.getMessage() != null
          && r.getMessage().startsWith(messagePrefix)) {
        if (to.isLoggable(Level.FINE)) {
          to.log(Level.FINE, "{0}: {1}{2}", new Object[] {r.getLoggerName(), oneLine(FORMAT.formatMessage(r)),
              r.getThrown() == null ? "" : " (" + oneLine(String.valueOf(r.getThrown())) + ")"});
        }
        return false;
      }
      return previous == null || previous.isLoggable(r);
    });
  }

  /**
   * From now on, records of {@code loggerName} at INFO or WARNING whose message starts with {@code
   * messagePrefix} are counted by {@code to}, which logs them at FINE at most once per its interval
   * (message and the exception's one-line summary, never the stack): for events a peer can repeat
   * at will, such as a malformed connection, where one line each would let it flood the log.
   *
   * @param loggerName the library logger's name, such as {@code "io.grpc.netty.NettyServerTransport.connections"}
   * @param messagePrefix the start of the raw (unformatted) messages to demote
   * @param to the counter and throttled log that receives them
   */
  public static synchronized void demoteThrottled(String loggerName, String messagePrefix, ThrottledLog to) {
    Logger logger = Logger.getLogger(loggerName);
    QUIETED.add(logger);
    Filter previous = logger.getFilter();
    logger.setFilter(r -> {
      if (r.getLevel().intValue() <= Level.WARNING.intValue() && r.getMessage() != null
          && r.getMessage().startsWith(messagePrefix)) {
        to.event(to.wouldLog() ? oneLine(FORMAT.formatMessage(r))
            + (r.getThrown() == null ? "" : " (" + oneLine(String.valueOf(r.getThrown())) + ")") : null);
        return false;
      }
      return previous == null || previous.isLoggable(r);
    });
  }

  private static String oneLine(String s) {
    return s == null ? "" : s.replace('\n', ' ').replace('\r', ' ');
  }
}
