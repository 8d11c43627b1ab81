package dev.tern.transport.udp.sim;

import dev.tern.netlab.link.LinkConfig;
import dev.tern.netlab.link.LinkProfile;
import dev.tern.netlab.link.LinkProfiles;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The link profiles the simulator knows: netlab's (from the field notes) plus harsh ones that
 * stress recovery: 7% loss, loss bursts of 50 packets, 5% reordering, 2% duplication, 1%
 * corruption, and all of them at once.
 */
public final class SimProfiles {
  /** Links of the user's own (the runner's --link options), by name, for this process. */
  private static final Map<String, LinkProfile> CUSTOM = new ConcurrentHashMap<>();

  private SimProfiles() {}

  /**
   * Makes a link of the user's own known by its name, so runs and campaigns can name it.
   *
   * @param profile the link
   * @throws IllegalArgumentException when the name is taken by a built-in profile
   */
  public static void register(LinkProfile profile) {
    if (names().contains(profile.name())) {
      throw new IllegalArgumentException("link name '" + profile.name() + "' is a built-in profile's;"
          + " give the link another with name=...");
    }
    CUSTOM.put(profile.name(), profile);
  }

  /** The harsh profile names. */
  public static final List<String> HARSH = List.of("harsh-loss", "harsh-burst", "harsh-reorder",
      "harsh-dup", "harsh-corrupt", "harsh-mix");

  /** Every name: netlab's profiles (the trace replays included) and the harsh ones. */
  public static List<String> names() {
    List<String> n = new ArrayList<>(LinkProfiles.names());
    n.addAll(HARSH);
    return n;
  }

  /** The profile called {@code name}. */
  public static LinkProfile get(String name) {
    LinkProfile custom = CUSTOM.get(name);
    if (custom != null) {
      return custom;
    }
    switch (name) {
      case "harsh-loss":
        return symmetric(name, "1 Mbit/s, RTT 300 ms, 7% random loss", base(1e6, 300).loss(0.07));
      case "harsh-burst":
        return symmetric(name, "1.1 Mbit/s, RTT 200 ms, 2% loss in bursts of 50 packets",
            base(1.1e6, 200).burstLoss(0.02, 50));
      case "harsh-reorder":
        return symmetric(name, "2 Mbit/s, RTT 200 ms, 5% reordering (+30 ms)",
            base(2e6, 200).reorder(0.05, 30));
      case "harsh-dup":
        return symmetric(name, "2 Mbit/s, RTT 200 ms, 2% duplication",
            base(2e6, 200).duplicate(0.02));
      case "harsh-corrupt":
        return symmetric(name, "2 Mbit/s, RTT 200 ms, 1% corruption",
            base(2e6, 200).corrupt(0.01));
      case "harsh-mix":
        return symmetric(name,
            "1.1 Mbit/s, RTT 200 ms, 3% loss, 5% reordering, 2% duplication, 1% corruption",
            base(1.1e6, 200).loss(0.03).reorder(0.05, 30).duplicate(0.02).corrupt(0.01));
      default:
        return LinkProfiles.get(name);
    }
  }

  private static LinkConfig.Builder base(double rate, double rttMs) {
    long r = Math.round(rate);
    return LinkConfig.builder().rateBitsPerSecond(r).delayMs(rttMs / 2)
        .queueLimitBytes(LinkProfiles.defaultQueueBytes(r, rttMs));
  }

  private static LinkProfile symmetric(String name, String description, LinkConfig.Builder b) {
    LinkConfig c = b.build();
    return new LinkProfile(name, description, c, c);
  }
}
