package dev.tern.bench.scenario;

import dev.tern.bench.stack.AutoStack;
import dev.tern.bench.stack.GrpcNettyStack;
import java.util.ArrayList;
import java.util.List;

/**
 * One column of the comparison: a stack and its congestion control. For stacks on kernel TCP that
 * is the kernel's, chosen for the run ({@code tcp:bbr}); for {@code udp} it is the transport's own
 * controller ({@code udp:cubic}, {@code udp:bbr}); {@code quic} runs quiche's default.
 *
 * @param stack stack name
 * @param cc the congestion control, or null for the stack's default
 */
record Variant(String stack, String cc) {

  /** The congestion controls of Tern's own {@code udp} transport, as variants name them. */
  static final List<String> UDP_CCS = List.of("bbr", "cubic", "newreno");

  /** The scenarios the {@code auto} column runs (first contact with no transport named). */
  static final List<String> AUTO_SCENARIOS = List.of("fallback");

  /** The label in results: {@code tcp/bbr}, {@code grpc-netty/cubic}, {@code udp/cubic}, {@code quic}. */
  String label() {
    return cc == null ? stack : stack + "/" + cc;
  }

  /** The kernel TCP congestion control the run sets, or null (a stack not on kernel TCP). */
  String kernelCc() {
    return onKernelTcp(stack) ? cc : null;
  }

  /**
   * The stack the server and client processes build: the stack's name, with the congestion
   * control of a stack that carries its own ({@code udp/cubic}; see {@code RpcStacks.byName}).
   */
  String processStack() {
    return cc != null && !onKernelTcp(stack) ? stack + "/" + cc : stack;
  }

  /** Whether the stack runs on kernel TCP. */
  static boolean onKernelTcp(String stack) {
    return stack.equals(GrpcNettyStack.NAME) || stack.equals("tcp");
  }

  /**
   * Parses {@code stack[:cc]}.
   *
   * @throws IllegalArgumentException for a congestion control on a stack that can choose none
   *     ({@code quic}), or one {@code udp} does not have
   */
  static Variant parse(String spec) {
    String[] p = spec.trim().split(":", 2);
    if (p.length == 2 && p[0].equals("udp") && !UDP_CCS.contains(p[1])) {
      throw new IllegalArgumentException("variant '" + spec + "': udp's congestion controls are " + UDP_CCS);
    }
    if (p.length == 2 && !onKernelTcp(p[0]) && !p[0].equals("udp")) {
      throw new IllegalArgumentException("variant '" + spec + "': only kernel-TCP stacks (grpc-netty, tcp) and udp "
          + "take a congestion control");
    }
    return new Variant(p[0], p.length == 2 ? p[1] : null);
  }

  /**
   * The default columns: grpc-netty on CUBIC as the reference, Tern TCP on CUBIC and BBR, Tern's
   * own {@code udp} on BBR and CUBIC, every other transport, and {@code auto} (Tern with no
   * transport named; it runs only {@link #AUTO_SCENARIOS}).
   */
  static List<Variant> defaults(List<String> transports) {
    List<Variant> v = new ArrayList<>();
    v.add(new Variant(GrpcNettyStack.NAME, "cubic"));
    for (String t : transports) {
      if (t.equals("tcp")) {
        v.add(new Variant("tcp", "cubic"));
        v.add(new Variant("tcp", "bbr"));
      } else if (t.equals("udp")) {
        v.add(new Variant("udp", "bbr"));
        v.add(new Variant("udp", "cubic"));
      } else {
        v.add(new Variant(t, null));
      }
    }
    v.add(new Variant(AutoStack.NAME, null));
    return v;
  }
}
