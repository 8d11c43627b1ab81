package dev.tern.codegen;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

/**
 * A SHA-256 over everything that decides the generated output: the proto sources (content),
 * the include paths' protos (content), dependency artifacts (path, size, time), protoc's
 * version and classifier, the options and the plugin itself. Equal fingerprints mean the
 * previous output is still right.
 */
final class Fingerprint {
  private final MessageDigest digest;

  Fingerprint() {
    try {
      digest = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  /** Adds a labelled value. */
  Fingerprint add(String label, Object value) {
    digest.update((label + "=" + value + "\n").getBytes(StandardCharsets.UTF_8));
    return this;
  }

  /** Adds the content of every proto under the root (names and bytes). */
  Fingerprint addProtoTree(Path root) throws IOException {
    add("root", root);
    for (String name : ProtoPaths.protosUnder(root)) {
      add("file", name);
      digest.update(Files.readAllBytes(root.resolve(name)));
    }
    return this;
  }

  /** Adds files by identity (path, size, modification time): cheap for jars. */
  Fingerprint addFiles(String label, List<Path> files) throws IOException {
    for (Path f : files) {
      if (Files.isRegularFile(f)) {
        add(label, f + "|" + Files.size(f) + "|" + Files.getLastModifiedTime(f).toMillis());
      } else if (Files.isDirectory(f)) {
        addProtoTree(f);
      } else {
        add(label, f + "|absent");
      }
    }
    return this;
  }

  /** The hex digest. */
  String value() {
    return HexFormat.of().formatHex(digest.digest());
  }

  /** Adds every file under a folder by identity: a plugin loaded from its classes folder. */
  Fingerprint addTreeIdentity(String label, Path root) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
        add(label, root.relativize(f) + "|" + Files.size(f) + "|"
            + Files.getLastModifiedTime(f).toMillis());
      }
    }
    return this;
  }

  /** Whether {@code file} holds this value. */
  static boolean matches(Path file, String value) throws IOException {
    return Files.isRegularFile(file) && Files.readString(file).trim().equals(value);
  }
}
