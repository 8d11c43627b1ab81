package dev.tern.codegen;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.zip.ZipFile;

/**
 * Decides whether this project must compile {@code tern/options.proto} itself: when one of its
 * protos imports it and no dependency carries the compiled options class (rpc-api does), protoc
 * also writes the options' Java classes, so the project compiles on protobuf-java alone.
 */
final class TernOptionsProto {
  /** The import path users write. */
  static final String PATH = "tern/options.proto";
  /** The class protobuf's Java generator writes for it (outer class of the file). */
  private static final String CLASS_ENTRY = "dev/tern/rpc/proto/Options.class";

  private TernOptionsProto() {}

  /**
   * Whether to add {@link #PATH} to the files protoc generates Java for.
   *
   * @param roots source roots
   * @param protos source protos, relative to a root
   * @param classPath the dependency jars and folders
   */
  static boolean mustCompile(List<Path> roots, Collection<String> protos, List<Path> classPath)
      throws IOException {
    if (protos.contains(PATH) || !imported(roots, protos)) {
      return false;
    }
    for (Path entry : classPath) {
      if (Files.isDirectory(entry) && Files.isRegularFile(entry.resolve(CLASS_ENTRY))) {
        return false;
      }
      if (Files.isRegularFile(entry) && entry.toString().endsWith(".jar")) {
        try (ZipFile zip = new ZipFile(entry.toFile())) {
          if (zip.getEntry(CLASS_ENTRY) != null) {
            return false;
          }
        }
      }
    }
    return true;
  }

  private static boolean imported(List<Path> roots, Collection<String> protos) throws IOException {
    String quoted = "\"" + PATH + "\"";
    for (String proto : protos) {
      for (Path root : roots) {
        Path file = root.resolve(proto);
        if (Files.isRegularFile(file) && Files.readString(file).contains(quoted)) {
          return true;
        }
      }
    }
    return false;
  }
}
