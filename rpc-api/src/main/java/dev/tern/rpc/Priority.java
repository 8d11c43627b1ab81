package dev.tern.rpc;

/**
 * The priority of one call, in the spirit of RFC 9218 (Extensible Prioritization Scheme for HTTP).
 *
 * <p>{@code urgency} runs from 0 (most urgent) to 7 (least urgent); RFC 9218 §4.1 sets the default
 * to 3. A transport sends data of a more urgent call before data of a less urgent one. Among calls
 * of equal urgency, {@code incremental} calls share the link round-robin (RFC 9218 §4.2) while
 * non-incremental ones are sent one after another in the order they started.
 *
 * <p>Transports without priorities (gRPC over TCP) carry the value but cannot act on it.
 */
public final class Priority {
  /** Urgency of calls that set none: RFC 9218 §4.1. */
  public static final int DEFAULT_URGENCY = 3;
  /** The most urgent level. */
  public static final int MOST_URGENT = 0;
  /** The least urgent level. */
  public static final int LEAST_URGENT = 7;

  /** Urgency 3, not incremental: RFC 9218's defaults. */
  public static final Priority DEFAULT = new Priority(DEFAULT_URGENCY, false);

  private static final Priority[] CACHE = new Priority[16];

  static {
    for (int u = 0; u <= 7; u++) {
      CACHE[u * 2] = u == DEFAULT_URGENCY ? DEFAULT : new Priority(u, false);
      CACHE[u * 2 + 1] = new Priority(u, true);
    }
  }

  private final int urgency;
  private final boolean incremental;

  private Priority(int urgency, boolean incremental) {
    this.urgency = urgency;
    this.incremental = incremental;
  }

  /**
   * Returns the priority with this urgency and incremental flag; the sixteen values are cached,
   * so this does not allocate.
   *
   * @param urgency 0 ({@link #MOST_URGENT}) to 7 ({@link #LEAST_URGENT})
   * @param incremental whether the call's data may be interleaved with other calls of the same
   *     urgency
   * @return the priority
   * @throws IllegalArgumentException if {@code urgency} is outside 0..7
   */
  public static Priority of(int urgency, boolean incremental) {
    if (urgency < MOST_URGENT || urgency > LEAST_URGENT) {
      throw new IllegalArgumentException("urgency must be in 0..7, was " + urgency);
    }
    return CACHE[urgency * 2 + (incremental ? 1 : 0)];
  }

  /**
   * How urgent the call is (RFC 9218 §4.1).
   *
   * @return 0 (most urgent) to 7 (least urgent)
   */
  public int urgency() {
    return urgency;
  }

  /**
   * Whether this call's data may be interleaved with other calls of the same urgency (RFC 9218
   * §4.2).
   *
   * @return true for round-robin sharing, false to be sent whole in the order calls started
   */
  public boolean incremental() {
    return incremental;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Priority && ((Priority) o).urgency == urgency
        && ((Priority) o).incremental == incremental;
  }

  @Override
  public int hashCode() {
    return urgency * 2 + (incremental ? 1 : 0);
  }

  /** The RFC 9218 §4 structured-field form, for example {@code u=1, i}. */
  @Override
  public String toString() {
    return incremental ? "u=" + urgency + ", i" : "u=" + urgency;
  }
}
