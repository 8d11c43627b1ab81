package dev.tern.transport.udp.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** The workloads the simulator runs; each builds its calls from a seeded random source. */
public enum Scenario {
  /** One 1 KiB request, one 1 KiB response. */
  UNARY {
    @Override
    public List<Call> calls(Random r) {
      return List.of(new Call(0, 1024, 1024));
    }
  },
  /** Sixteen concurrent 1 KiB / 1 KiB calls. */
  CONCURRENT {
    @Override
    public List<Call> calls(Random r) {
      List<Call> c = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        c.add(new Call(0, 1024, 1024));
      }
      return c;
    }
  },
  /** The feed screen: an API call (2 KiB -> 8 KiB) and six images of 30-200 KiB together. */
  FEED {
    @Override
    public List<Call> calls(Random r) {
      List<Call> c = new ArrayList<>();
      c.add(new Call(0, 2048, 8192));
      for (int i = 0; i < 6; i++) {
        c.add(new Call(0, 512, (30 + r.nextInt(171)) * 1024));
      }
      return c;
    }
  },
  /** One 1 MiB download. */
  BULK {
    @Override
    public List<Call> calls(Random r) {
      return List.of(new Call(0, 128, 1 << 20));
    }
  },
  /** A few calls of random sizes (up to 64 KiB each way) at random times in the first second. */
  MIXED {
    @Override
    public List<Call> calls(Random r) {
      List<Call> c = new ArrayList<>();
      int n = 1 + r.nextInt(8);
      for (int i = 0; i < n; i++) {
        c.add(new Call(r.nextInt(1000) * 1_000_000L, 8 + r.nextInt(64 * 1024),
            r.nextInt(64 * 1024)));
      }
      c.sort((a, b) -> Long.compare(a.startNs, b.startNs));
      return c;
    }
  };

  /** The calls of one run. */
  public abstract List<Call> calls(Random r);

  /** The scenario named {@code name} (case-insensitive). */
  public static Scenario of(String name) {
    for (Scenario s : values()) {
      if (s.name().equalsIgnoreCase(name)) {
        return s;
      }
    }
    throw new IllegalArgumentException("unknown scenario '" + name + "'; known: "
        + java.util.Arrays.toString(values()).toLowerCase(java.util.Locale.ROOT));
  }
}
