package dev.tern.rpc.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

class ThrottledLogTest {
  private static Logger capturing(List<LogRecord> into) {
    Logger logger = Logger.getAnonymousLogger();
    logger.setUseParentHandlers(false);
    logger.setLevel(Level.ALL);
    logger.addHandler(new Handler() {
      @Override
      public void publish(LogRecord r) {
        into.add(r);
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    });
    return logger;
  }

  @Test
  void countsEveryEventAndLogsTheFirstOfEachIntervalAtFineWithTheCount() {
    List<LogRecord> lines = new ArrayList<>();
    ThrottledLog log = new ThrottledLog(capturing(lines), "bad thing", TimeUnit.HOURS.toNanos(1));
    for (int i = 0; i < 10_000; i++) {
      log.event("number " + i);
    }
    assertThat(log.count()).isEqualTo(10_000);
    assertThat(lines).hasSize(1);
    assertThat(lines.get(0).getLevel()).isEqualTo(Level.FINE);
    assertThat(new java.util.logging.SimpleFormatter().formatMessage(lines.get(0)))
        .isEqualTo("bad thing: number 0 (1 so far, 1 since the last line)");
    assertThat(log.wouldLog()).as("within the interval").isFalse();
  }

  @Test
  void withNoIntervalEveryEventIsALineAndTheCountsSinceTheLastLineAddUp() {
    List<LogRecord> lines = new ArrayList<>();
    ThrottledLog log = new ThrottledLog(capturing(lines), "x", 0);
    log.event();
    log.event();
    assertThat(lines).hasSize(2);
    assertThat(new java.util.logging.SimpleFormatter().formatMessage(lines.get(1))).isEqualTo("x (2 so far, 1 since the last line)");
  }

  @Test
  void aNegativeIntervalIsRefusedByName() {
    assertThatThrownBy(() -> new ThrottledLog(Logger.getAnonymousLogger(), "x", -1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("intervalNanos");
  }

  @Test
  void aServersIdleTimeoutIsFiveMinutesUnlessSetAndOffForLongMaxValue() {
    assertThat(TransportOptions.serverIdleTimeoutMillis(TransportOptions.defaults())).isEqualTo(300_000);
    assertThat(TransportOptions.serverIdleTimeoutMillis(TransportOptions.defaults()
        .with(TransportOptions.IDLE_TIMEOUT_MILLIS, 1_500L))).isEqualTo(1_500);
    assertThat(TransportOptions.serverIdleTimeoutMillis(TransportOptions.defaults()
        .with(TransportOptions.IDLE_TIMEOUT_MILLIS, TimeUnit.NANOSECONDS.toMillis(Long.MAX_VALUE)))).isZero();
    assertThat(TransportOptions.serverIdleTimeoutMillis(TransportOptions.defaults()
        .with(TransportOptions.IDLE_TIMEOUT_MILLIS, 0L))).isZero();
  }
}
