package dev.tern.codegen;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugin.logging.Log;

/**
 * Runs protoc once for messages ({@code --java_out}) and the descriptor set (with imports and
 * source info), and turns its errors into a build failure that names file, line and column.
 */
final class Protoc {
  private final Path executable;
  private final Log log;

  Protoc(Path executable, Log log) {
    this.executable = executable;
    this.log = log;
  }

  /**
   * Compiles {@code protos} (paths relative to one of the {@code includes}).
   *
   * @param includes include paths in lookup order; the source roots come first
   * @param javaOut where {@code --java_out} writes
   * @param lite whether to write protobuf-javalite messages
   * @param descriptorSet where the descriptor set goes
   * @param argFile where the argument file for protoc is written
   * @throws MojoFailureException when protoc rejects the protos
   * @throws MojoExecutionException when protoc cannot run
   */
  void compile(List<Path> includes, List<String> protos, Path javaOut, boolean lite,
      Path descriptorSet, Path argFile) throws MojoFailureException, MojoExecutionException {
    List<String> args = new ArrayList<>();
    for (Path include : includes) {
      args.add("--proto_path=" + include);
    }
    args.add("--java_out=" + (lite ? "lite:" : "") + javaOut);
    args.add("--descriptor_set_out=" + descriptorSet);
    args.add("--include_imports");
    args.add("--include_source_info");
    args.addAll(protos);
    String stderr;
    int exit;
    try {
      // protoc reads arguments from a file, which keeps long lists off the command line.
      Files.write(argFile, args, StandardCharsets.UTF_8);
      Process process = new ProcessBuilder(executable.toString(), "@" + argFile)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .start();
      process.getOutputStream().close();
      CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> readAll(process));
      exit = process.waitFor();
      stderr = err.join();
    } catch (IOException e) {
      throw new MojoExecutionException("Cannot run protoc " + executable + ": " + e.getMessage(),
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new MojoExecutionException("Interrupted while protoc ran", e);
    }
    report(includes, ProtocDiagnostic.parse(stderr), exit);
  }

  private void report(List<Path> includes, List<ProtocDiagnostic> diagnostics, int exit)
      throws MojoFailureException {
    List<String> errors = new ArrayList<>();
    for (ProtocDiagnostic d : diagnostics) {
      String text = d.format(d.file() == null ? null : locate(includes, d.file()));
      if (exit == 0 || d.isWarning()) {
        log.warn("protoc: " + text);
      } else {
        log.error("protoc: " + text);
        errors.add(text);
      }
    }
    if (exit != 0) {
      ProtocDiagnostic first = diagnostics.stream()
          .filter(d -> !d.isWarning()).findFirst().orElse(null);
      String summary = first == null
          ? "protoc failed with exit code " + exit + " and no message"
          : "protoc failed: " + errors.get(0);
      throw new MojoFailureException(summary + "\n" + String.join("\n", errors));
    }
  }

  /** The file's real path under the first include path holding it, else as protoc named it. */
  static String locate(List<Path> includes, String file) {
    for (Path include : includes) {
      Path candidate = include.resolve(file);
      if (Files.isRegularFile(candidate)) {
        return candidate.toString();
      }
    }
    return file;
  }

  private static String readAll(Process process) {
    try {
      return new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(could not read protoc's error output: " + e.getMessage() + ")";
    }
  }
}
