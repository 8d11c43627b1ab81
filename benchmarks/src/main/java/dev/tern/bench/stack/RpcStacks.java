package dev.tern.bench.stack;

import dev.tern.rpc.spi.TransportProvider;
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
   * The stack called {@code name}.
   *
   * @throws IllegalArgumentException if no stack has that name (the message lists the known ones)
   */
  public static RpcStack byName(String name) {
    if (GrpcNettyStack.NAME.equals(name)) {
      return new GrpcNettyStack();
    }
    if (AutoStack.NAME.equals(name)) {
      return new AutoStack();
    }
    for (TransportProvider p : ServiceLoader.load(TransportProvider.class)) {
      if (p.name().equals(name)) {
        return new TernStack(p);
      }
    }
    throw new IllegalArgumentException("unknown stack '" + name + "'; known: " + allNames());
  }
}
