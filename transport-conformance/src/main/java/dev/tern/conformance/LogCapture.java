package dev.tern.conformance;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Captures what java.util.logging would print through the root logger's handlers (records at the
 * levels the logging configuration lets through), for tests that check a library stays quiet.
 * Close it to detach.
 */
public final class LogCapture extends Handler implements AutoCloseable {
  private final List<LogRecord> records = new ArrayList<>();

  private LogCapture() {
    setLevel(Level.ALL);
  }

  /** Starts capturing on the root logger. */
  public static LogCapture start() {
    LogCapture c = new LogCapture();
    Logger.getLogger("").addHandler(c);
    return c;
  }

  @Override
  public synchronized void publish(LogRecord record) {
    records.add(record);
  }

  /** Every record seen so far, as {@code LEVEL logger: message}. */
  public synchronized List<String> lines() {
    List<String> out = new ArrayList<>();
    for (LogRecord r : records) {
      String message = r.getMessage();
      if (r.getParameters() != null && message != null) {
        try {
          message = java.text.MessageFormat.format(message, r.getParameters());
        } catch (IllegalArgumentException notAPattern) {
          // keep the raw message
        }
      }
      out.add(r.getLevel() + " " + r.getLoggerName() + ": " + message
          + (r.getThrown() == null ? "" : " [" + r.getThrown() + "]"));
    }
    return out;
  }

  @Override
  public void flush() {}

  @Override
  public void close() {
    Logger.getLogger("").removeHandler(this);
  }
}
