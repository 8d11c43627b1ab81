package dev.tern.transport.udp.connection;

import java.util.List;
import java.util.Locale;

/**
 * The tests' only way to the core's deliberate defects ({@link Mutant}, package-private in the
 * production code): test scope, so no deployment can reach them.
 */
public final class Mutants {
  /** The recovery defects the build's campaign slice must fail. */
  public static final List<String> RECOVERY = List.of("PTO_4X", "NO_FAST_RETRANSMIT", "NO_PACING");
  /** An end that acknowledges packets it never received (RFC 9000 §21.4). */
  public static final String OPTIMISTIC_ACKS = "OPTIMISTIC_ACKS";

  private Mutants() {}

  /**
   * {@code config} with the defect named {@code name} (case-insensitive; {@code none} for the
   * protocol as specified).
   *
   * @throws IllegalArgumentException for a name that is not a defect
   */
  public static ConnectionConfig with(ConnectionConfig config, String name) {
    Mutant m;
    try {
      m = Mutant.valueOf(name.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("no such mutant: " + name + " (one of none, "
          + String.join(", ", RECOVERY).toLowerCase(Locale.ROOT) + ", "
          + OPTIMISTIC_ACKS.toLowerCase(Locale.ROOT) + ")");
    }
    return config.withMutant(m);
  }

  /** The name of the defect in {@code config} ({@code NONE} normally). */
  public static String of(ConnectionConfig config) {
    return config.mutant().name();
  }
}
