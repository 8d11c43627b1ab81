package dev.tern.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Server;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/** The command-line client and server take grpc's interop flags. */
@Timeout(60)
class InteropCommandLineTest {
  @Test
  void clientRunsCasesAgainstTheServerStartedFromFlags() throws Exception {
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    InteropServer serverCommand = new InteropServer();
    new CommandLine(serverCommand).parseArgs("--port=0", "--host=127.0.0.1", "--transport=tcp", "--use_tls=false");
    Server server = serverCommand.start(scheduler);
    try {
      int exit = new CommandLine(new InteropClient()).execute("--transport=tcp", "--server_host=127.0.0.1",
          "--server_port=" + server.getPort(), "--use_tls=false",
          "--test_case=empty_unary,large_unary,client_compressed_unary,unimplemented_service");
      assertThat(exit).isZero();
      int failing = new CommandLine(new InteropClient()).execute("--transport=tcp", "--server_host=127.0.0.1",
          "--server_port=" + server.getPort(), "--use_tls=false", "--test_case=no_such_case");
      assertThat(failing).as("an unknown case is an error").isNotZero();
    } finally {
      server.shutdownNow();
      assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      scheduler.shutdownNow();
    }
  }

  @Test
  void unknownCaseNamesAreRejectedNamingTheValue() {
    try {
      InteropCase.fromName("bogus");
      throw new AssertionError("expected an IllegalArgumentException");
    } catch (IllegalArgumentException e) {
      assertThat(e.getMessage()).contains("bogus").contains("test_case");
    }
  }
}
