package dev.tern.bench.scenario;

import dev.tern.bench.service.BenchService;
import dev.tern.bench.stack.AutoStack;
import dev.tern.bench.stack.RpcStack;
import dev.tern.bench.stack.RpcStacks;
import dev.tern.bench.stack.TlsMaterial;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.List;

/**
 * The benchmark's client process: runs the chosen scenarios against one server for every
 * repetition and writes raw results for the orchestrator ({@link Recorder}'s format).
 */
public final class ClientMain {
  private ClientMain() {}

  /**
   * Arguments: {@code --stack NAME --host H --port P --scenarios a,b --reps N [--first-rep I] --out FILE
   * [--tls-dir DIR]} and the sizes of {@link ClientConfig}. Repetitions are numbered from {@code
   * --first-rep} (a run of one repetition per process says which it is).
   */
  public static void main(String[] argv) throws Exception {
    Args args = new Args(argv);
    RpcStack stack = RpcStacks.byName(args.get("stack"));
    ClientConfig config = ClientConfig.from(args);
    List<String> scenarios = List.of(args.get("scenarios").split(","));
    int reps = args.getInt("reps", 5);
    int firstRep = args.getInt("first-rep", 0);
    Coordinator coordinator = new Coordinator();
    try (Recorder recorder = new Recorder(Path.of(args.get("out")))) {
      String tlsDir = args.get("tls-dir", "");
      TlsMaterial tls = tlsDir.isEmpty() ? null : TlsMaterial.readFrom(Path.of(tlsDir));
      long w0 = System.nanoTime();
      warmUpLocally(stack, tls);
      int port = args.getInt("port", 0);
      ClientContext ctx = new ClientContext(stack, args.get("host"), port > 0 ? port : coordinator.serverPort(), tls,
          config, recorder, coordinator);
      coordinator.timing(firstRep, "start-up", (System.nanoTime() - w0) / 1_000_000);
      for (int rep = firstRep; rep < firstRep + reps; rep++) {
        for (String s : scenarios) {
          long t0 = System.nanoTime();
          try {
            runOne(s, rep, ctx);
            coordinator.timing(rep, s, (System.nanoTime() - t0) / 1_000_000);
          } catch (Exception | AssertionError e) {
            coordinator.timing(rep, s, (System.nanoTime() - t0) / 1_000_000);
            recorder.metric(rep, s, "failed", 1);
            recorder.note(s, "rep " + rep + ": " + e);
            coordinator.progress(s + " rep " + rep + " FAILED: " + e);
          }
        }
      }
    }
    System.exit(0);
  }

  private static void runOne(String scenario, int rep, ClientContext ctx) throws Exception {
    switch (scenario) {
      case UnaryScenario.NAME -> UnaryScenario.run(rep, ctx);
      case FeedScenario.NAME -> FeedScenario.run(rep, ctx);
      case BulkScenario.NAME -> BulkScenario.run(rep, ctx);
      case SetupScenario.NAME -> SetupScenario.run(rep, ctx);
      case ScaleScenario.NAME -> ScaleScenario.run(rep, ctx);
      case MigrationScenario.NAME -> MigrationScenario.run(rep, ctx);
      case FallbackScenario.NAME -> FallbackScenario.run(rep, ctx);
      default -> throw new IllegalArgumentException("unknown client scenario '" + scenario + "'");
    }
  }

  /**
   * Loads and compiles the call path before anything is measured, against a server of the same
   * stack in this process on loopback (in the client's namespace: no emulated link crossed), so
   * that the first measured call is not the JVM's first and the benchmark's server is first
   * contacted by a measured call. For {@code auto} every transport it may choose is warmed, then
   * {@code auto} itself. Runs while the benchmark's server JVM is still starting.
   */
  private static void warmUpLocally(RpcStack stack, TlsMaterial tls) throws Exception {
    io.grpc.Server local = stack.startServer(new InetSocketAddress("127.0.0.1", 0), new BenchService().definition(), tls);
    try {
      int port = ((InetSocketAddress) local.getListenSockets().get(0)).getPort();
      List<String> stacks = new java.util.ArrayList<>();
      if (stack.name().equals(AutoStack.NAME)) {
        stacks.addAll(AutoStack.serverTransports());
      }
      stacks.add(stack.name());
      for (String t : stacks) {
        ManagedChannel ch = RpcStacks.byName(t).newChannel("127.0.0.1", port, tls);
        try {
          for (int i = 0; i < 20; i++) {
            Calls.unary(ch, CallOptions.DEFAULT, 1024, 1024);
          }
        } finally {
          ClientContext.close(ch);
        }
      }
    } finally {
      local.shutdownNow();
      local.awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
