package dev.tern.bench.scenario;

import dev.tern.bench.stack.RpcStack;
import dev.tern.bench.stack.RpcStacks;
import dev.tern.bench.stack.TlsMaterial;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import java.nio.file.Path;
import java.util.List;

/**
 * The benchmark's client process: runs the chosen scenarios against one server for every
 * repetition and writes raw results for the orchestrator ({@link Recorder}'s format).
 */
public final class ClientMain {
  private ClientMain() {}

  /**
   * Arguments: {@code --stack NAME --host H --port P --scenarios a,b --reps N --out FILE [--tls-dir
   * DIR]} and the sizes of {@link ClientConfig}.
   */
  public static void main(String[] argv) throws Exception {
    Args args = new Args(argv);
    RpcStack stack = RpcStacks.byName(args.get("stack"));
    ClientConfig config = ClientConfig.from(args);
    List<String> scenarios = List.of(args.get("scenarios").split(","));
    int reps = args.getInt("reps", 5);
    Coordinator coordinator = new Coordinator();
    try (Recorder recorder = new Recorder(Path.of(args.get("out")))) {
      String tlsDir = args.get("tls-dir", "");
      ClientContext ctx = new ClientContext(stack, args.get("host"), args.getInt("port", 0),
          tlsDir.isEmpty() ? null : TlsMaterial.readFrom(Path.of(tlsDir)), config, recorder, coordinator);
      warmUp(ctx);
      for (int rep = 0; rep < reps; rep++) {
        for (String s : scenarios) {
          try {
            runOne(s, rep, ctx);
          } catch (Exception | AssertionError e) {
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
      default -> throw new IllegalArgumentException("unknown client scenario '" + scenario + "'");
    }
  }

  /** Loads and compiles the call path once, on a connection of its own, so the first measured call is not the JVM's first. */
  private static void warmUp(ClientContext ctx) {
    ManagedChannel ch = ctx.newChannel();
    try {
      for (int i = 0; i < 5; i++) {
        Calls.unary(ch, CallOptions.DEFAULT, 1024, 1024);
      }
    } finally {
      ClientContext.close(ch);
    }
  }
}
