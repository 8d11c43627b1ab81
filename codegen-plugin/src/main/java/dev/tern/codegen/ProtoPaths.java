package dev.tern.codegen;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/** Finds proto files and builds the include directories protoc needs. */
final class ProtoPaths {
  /** The fallback copy of {@code tern/options.proto} inside this plugin. */
  static final String FALLBACK_OPTIONS = "dev/tern/codegen/include/tern/options.proto";

  private ProtoPaths() {}

  /** Every {@code .proto} under the root, relative to it with {@code /}, sorted. */
  static List<String> protosUnder(Path root) throws IOException {
    if (!Files.isDirectory(root)) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(root)) {
      return files.filter(p -> p.toString().endsWith(".proto") && Files.isRegularFile(p))
          .map(p -> root.relativize(p).toString().replace('\\', '/'))
          .sorted()
          .toList();
    }
  }

  /**
   * Copies the {@code .proto} entries of the jars into {@code target}, the first jar that has a
   * path winning (the order of the project's dependencies); directories are returned as include
   * paths of their own (a reactor module resolved to its classes folder).
   *
   * @return extra include directories (the classes folders), in order
   */
  static List<Path> extractFromDependencies(List<Path> artifacts, Path target)
      throws IOException {
    deleteTree(target);
    Files.createDirectories(target);
    List<Path> directories = new ArrayList<>();
    for (Path artifact : artifacts) {
      if (Files.isDirectory(artifact)) {
        if (!protosUnder(artifact).isEmpty()) {
          directories.add(artifact);
        }
      } else if (artifact.toString().endsWith(".jar") && Files.isRegularFile(artifact)) {
        extractJar(artifact, target);
      }
    }
    return directories;
  }

  private static void extractJar(Path jar, Path target) throws IOException {
    try (ZipFile zip = new ZipFile(jar.toFile())) {
      Enumeration<? extends ZipEntry> entries = zip.entries();
      while (entries.hasMoreElements()) {
        ZipEntry entry = entries.nextElement();
        if (entry.isDirectory() || !entry.getName().endsWith(".proto")) {
          continue;
        }
        Path out = target.resolve(entry.getName()).normalize();
        if (!out.startsWith(target)) {
          continue; // a "../" entry: never write outside the target
        }
        if (Files.exists(out)) {
          continue;
        }
        Files.createDirectories(out.getParent());
        try (InputStream in = zip.getInputStream(entry)) {
          Files.copy(in, out);
        }
      }
    }
  }

  /** Writes the plugin's fallback {@code tern/options.proto} under {@code target}. */
  static Path extractFallback(Path target) throws IOException {
    Path out = target.resolve("tern/options.proto");
    Files.createDirectories(out.getParent());
    try (InputStream in = ProtoPaths.class.getClassLoader().getResourceAsStream(FALLBACK_OPTIONS)) {
      if (in == null) {
        throw new IOException("plugin resource " + FALLBACK_OPTIONS + " is missing");
      }
      Files.copy(in, out, StandardCopyOption.REPLACE_EXISTING);
    }
    return target;
  }

  /** Deletes a directory tree if it exists. */
  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
        Files.delete(p);
      }
    }
  }
}
