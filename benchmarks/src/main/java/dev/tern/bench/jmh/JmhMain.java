package dev.tern.bench.jmh;

import dev.tern.bench.stack.RpcStack;
import dev.tern.bench.stack.RpcStacks;
import java.util.ArrayList;
import java.util.List;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Runs the JMH benchmarks with {@code transport} set to stock grpc-netty plus every available
 * transport found with {@link java.util.ServiceLoader}, unless {@code -p transport=...} is given.
 * Other arguments are JMH's own.
 */
public final class JmhMain {
  private JmhMain() {}

  /** JMH's command line, with the transport list filled in. */
  public static void main(String[] args) throws Exception {
    CommandLineOptions cli = new CommandLineOptions(args);
    OptionsBuilder b = new OptionsBuilder();
    b.parent(cli);
    if (!cli.getParameter("transport").hasValue()) {
      List<String> names = new ArrayList<>();
      for (String n : RpcStacks.allNames()) {
        RpcStack s = RpcStacks.byName(n);
        if (s.isAvailable()) {
          names.add(n);
        } else {
          System.out.println("# skipping transport " + n + ": " + s.unavailableReason());
        }
      }
      b.param("transport", names.toArray(new String[0]));
    }
    Options opts = b.build();
    new Runner(opts).run();
  }
}
