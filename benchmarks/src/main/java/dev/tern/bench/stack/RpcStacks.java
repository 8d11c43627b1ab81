package dev.tern.bench.stack;

import dev.tern.rpc.spi.TransportProvider;
import dev.tern.transport.udp.congestion.CongestionControl;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/** Finds the stacks this build can run: stock grpc-netty plus Tern over every transport on the class path. */
public final class RpcStacks {
  private RpcStacks() {}

  /** The in-process transport's name: it joins no network, so it is never a benchmark column by default. */
  public static final String IN_PROCESS = "inprocess";

  /**
   * Names of the network transports found with {@link ServiceLoader}, available or not, in class-path
   * order (the in-process transport left out).
   */
  public static List<String> transportNames() {
    List<String> names = new ArrayList<>();
    for (TransportProvider p : ServiceLoader.load(TransportProvider.class)) {
      if (!p.name().equals(IN_PROCESS)) {
        names.add(p.name());
      }
    }
    return names;
  }

  /** Every stack name: {@code grpc-netty} first, then each transport's, then {@code auto} (no transport named). */
  public static List<String> allNames() {
    List<String> names = new ArrayList<>();
    names.add(GrpcNettyStack.NAME);
    names.addAll(transportNames());
    names.add(AutoStack.NAME);
    return names;
  }

  /**
   * The stack called {@code name}; {@code udp/<cc>} is the {@code udp} transport with its own
   * congestion controller {@code cc} ({@code bbr}, {@code cubic} or {@code newreno}) on both
   * sides.
   *
   * @throws IllegalArgumentException if no stack has that name (the message lists the known ones)
   */
  public static RpcStack byName(String name) {
    int slash = name.indexOf('/');
    if (slash > 0 && name.startsWith("udp/")) {
      String cc = name.substring(slash + 1);
      CongestionControl algorithm;
      switch (cc) {
        case "bbr": algorithm = CongestionControl.BBR; break;
        case "cubic": algorithm = CongestionControl.CUBIC; break;
        case "newreno": algorithm = CongestionControl.NEW_RENO; break;
        default: throw new IllegalArgumentException("unknown udp congestion control '" + cc
            + "' in stack '" + name + "'; known: bbr, cubic, newreno");
      }
      return new TernStack(provider("udp", name), algorithm);
    }
    if (GrpcNettyStack.NAME.equals(name)) {
      return new GrpcNettyStack();
    }
    if (AutoStack.NAME.equals(name)) {
      return new AutoStack();
    }
    return new TernStack(provider(name, name), null);
  }

  private static TransportProvider provider(String transport, String stack) {
    for (TransportProvider p : ServiceLoader.load(TransportProvider.class)) {
      if (p.name().equals(transport)) {
        return p;
      }
    }
    throw new IllegalArgumentException("unknown stack '" + stack + "'; known: " + allNames());
  }
}
