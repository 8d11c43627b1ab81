package dev.tern.rpc;

/** Stand-in for rpc-api's Priority (rpc-api is not in this test's repository). */
public final class Priority {
  private final int urgency;
  private final boolean incremental;

  private Priority(int urgency, boolean incremental) {
    this.urgency = urgency;
    this.incremental = incremental;
  }

  public static Priority of(int urgency, boolean incremental) {
    return new Priority(urgency, incremental);
  }

  @Override
  public String toString() {
    return incremental ? "u=" + urgency + ", i" : "u=" + urgency;
  }
}
