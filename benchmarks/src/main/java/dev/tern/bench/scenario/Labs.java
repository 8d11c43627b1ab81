package dev.tern.bench.scenario;

/** Opens the lab a profile runs on. */
final class Labs {
  private Labs() {}

  /**
   * A lab for {@code profile}: loopback for {@code loopback}, the netlab emulator for the others.
   *
   * @throws IllegalStateException when the emulator cannot be used here (the message says why)
   */
  static Lab open(String profile, long seed) throws Exception {
    if (profile.equals("loopback")) {
      return new LoopbackLab();
    }
    throw new IllegalStateException("profile '" + profile + "' needs the netlab IP-level emulator, which this "
        + "build does not have yet; use --profiles loopback");
  }
}
