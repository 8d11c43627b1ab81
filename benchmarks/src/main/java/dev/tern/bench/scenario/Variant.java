package dev.tern.bench.scenario;

import dev.tern.bench.stack.AutoStack;
import dev.tern.bench.stack.GrpcNettyStack;
import java.util.ArrayList;
import java.util.List;

/**
 * One column of the comparison: a stack and, for stacks on kernel TCP, the kernel's congestion
 * control chosen for the run ({@code tcp:bbr}); {@code quic}, {@code udp} carry their own.
 *
 * @param stack stack name
 * @param kernelCc kernel TCP congestion control, or null when the stack does not use kernel TCP
 */
record Variant(String stack, String kernelCc) {

  /** The scenarios the {@code auto} column runs (first contact with no transport named). */
  static final List<String> AUTO_SCENARIOS = List.of("fallback");

  /** The label in results: {@code tcp/bbr}, {@code grpc-netty/cubic}, {@code quic}. */
  String label() {
    return kernelCc == null ? stack : stack + "/" + kernelCc;
  }

  /** Whether the stack runs on kernel TCP. */
  static boolean onKernelTcp(String stack) {
    return stack.equals(GrpcNettyStack.NAME) || stack.equals("tcp");
  }

  /**
   * Parses {@code stack[:cc]}.
   *
   * @throws IllegalArgumentException for a congestion control on a stack that has no kernel TCP
   */
  static Variant parse(String spec) {
    String[] p = spec.trim().split(":", 2);
    if (p.length == 2 && !onKernelTcp(p[0])) {
      throw new IllegalArgumentException("variant '" + spec + "': only kernel-TCP stacks (grpc-netty, tcp) take a "
          + "kernel congestion control");
    }
    return new Variant(p[0], p.length == 2 ? p[1] : null);
  }

  /**
   * The default columns: grpc-netty on CUBIC as the reference, Tern TCP on CUBIC and BBR, every
   * other transport, and {@code auto} (Tern with no transport named; it runs only {@link
   * #AUTO_SCENARIOS}).
   */
  static List<Variant> defaults(List<String> transports) {
    List<Variant> v = new ArrayList<>();
    v.add(new Variant(GrpcNettyStack.NAME, "cubic"));
    for (String t : transports) {
      if (t.equals("tcp")) {
        v.add(new Variant("tcp", "cubic"));
        v.add(new Variant("tcp", "bbr"));
      } else {
        v.add(new Variant(t, null));
      }
    }
    v.add(new Variant(AutoStack.NAME, null));
    return v;
  }
}
