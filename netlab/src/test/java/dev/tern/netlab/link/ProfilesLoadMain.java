package dev.tern.netlab.link;

/**
 * Loads every profile and prints, per trace direction, the trace's source and mean rate; exits
 * non-zero (with the error) when one fails. {@link BundledTracesTest} runs it in a JVM of its own
 * with neither the trace property nor the environment variable set.
 */
public final class ProfilesLoadMain {
  private ProfilesLoadMain() {}

  /** Loads the profiles; no arguments. */
  public static void main(String[] args) {
    System.out.println("override " + LinkProfiles.tracesOverride().isPresent());
    for (String name : LinkProfiles.names()) {
      LinkProfile p = LinkProfiles.get(name);
      for (LinkConfig c : new LinkConfig[] {p.clientToServer(), p.serverToClient()}) {
        if (c.trace() != null) {
          System.out.println(name + " " + c.trace().source() + " " + c.meanRateBitsPerSecond());
        }
      }
    }
  }
}
