package dev.tern.bench.scenario;

import dev.tern.netlab.link.LinkProfile;
import java.nio.file.Path;

/** Opens the lab a variant runs on. */
final class Labs {
  private Labs() {}

  /**
   * A lab for {@code profile}: loopback for null, otherwise netlab's emulator with the profile's
   * link (a named one or the user's own), {@code seed}, kernel TCP on {@code cc} (null: leave the
   * default) and a packet log at {@code packetLog}.
   *
   * @throws IllegalStateException when the emulator cannot run here (not root, a command failed)
   */
  static Lab open(LinkProfile profile, long seed, String cc, Path packetLog) {
    if (profile == null) {
      return new LoopbackLab();
    }
    return new NetlabLab(profile, seed, cc, packetLog);
  }
}
