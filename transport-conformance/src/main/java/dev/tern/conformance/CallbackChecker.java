package dev.tern.conformance;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Checks the SPI's threading rules for one listener: callbacks never overlap, and nothing follows
 * the terminal callback. Violations are collected and asserted by the suite after each test.
 */
final class CallbackChecker {
  private final String name;
  private final AtomicBoolean inCallback = new AtomicBoolean();
  private final List<String> violations;
  private volatile boolean ended;

  CallbackChecker(String name, List<String> violations) {
    this.name = name;
    this.violations = violations;
  }

  static List<String> newViolationList() {
    return new CopyOnWriteArrayList<>();
  }

  void enter(String event) {
    if (!inCallback.compareAndSet(false, true)) {
      violations.add(name + ": " + event + " ran while another callback of the same stream was running");
    }
    if (ended) {
      violations.add(name + ": " + event + " arrived after the stream had ended");
    }
  }

  void violation(String what) {
    violations.add(name + ": " + what);
  }

  void exit() {
    inCallback.set(false);
  }

  void end(String event) {
    if (ended) {
      violations.add(name + ": a second terminal callback (" + event + ")");
    }
    ended = true;
  }
}
