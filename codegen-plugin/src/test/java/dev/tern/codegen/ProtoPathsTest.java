package dev.tern.codegen;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProtoPathsTest {
  @TempDir Path tmp;

  @Test
  void extractsProtosFromJarsFirstJarWinsAndNothingEscapesTheTarget() throws IOException {
    Path first = jar("first.jar", "a/x.proto", "first", "a/X.class", "bytes");
    Path second = jar("second.jar", "a/x.proto", "second", "../evil.proto", "evil");
    Path out = tmp.resolve("out");
    List<Path> dirs = ProtoPaths.extractFromDependencies(List.of(first, second), out);
    assertThat(dirs).isEmpty();
    assertThat(Files.readString(out.resolve("a/x.proto"))).isEqualTo("first");
    assertThat(out.resolve("a/X.class")).doesNotExist();
    assertThat(tmp.resolve("evil.proto")).doesNotExist();
  }

  @Test
  void usesClassesFoldersWithProtosAsIncludePaths() throws IOException {
    Path classes = tmp.resolve("classes");
    Files.createDirectories(classes.resolve("p"));
    Files.writeString(classes.resolve("p/y.proto"), "syntax = \"proto3\";");
    Path empty = Files.createDirectories(tmp.resolve("empty"));
    assertThat(ProtoPaths.extractFromDependencies(List.of(classes, empty), tmp.resolve("out")))
        .containsExactly(classes);
    assertThat(ProtoPaths.protosUnder(classes)).containsExactly("p/y.proto");
  }

  @Test
  void fingerprintChangesWithProtoContentAndOptions() throws IOException {
    Path root = Files.createDirectories(tmp.resolve("src"));
    Files.writeString(root.resolve("a.proto"), "one");
    String before = new Fingerprint().add("lite", false).addProtoTree(root).value();
    assertThat(new Fingerprint().add("lite", false).addProtoTree(root).value()).isEqualTo(before);
    assertThat(new Fingerprint().add("lite", true).addProtoTree(root).value()).isNotEqualTo(before);
    Files.writeString(root.resolve("a.proto"), "two");
    assertThat(new Fingerprint().add("lite", false).addProtoTree(root).value())
        .isNotEqualTo(before);
  }

  private Path jar(String name, String... entriesAndContents) throws IOException {
    Path jar = tmp.resolve(name);
    try (OutputStream os = Files.newOutputStream(jar); ZipOutputStream zip = new ZipOutputStream(os)) {
      for (int i = 0; i < entriesAndContents.length; i += 2) {
        zip.putNextEntry(new ZipEntry(entriesAndContents[i]));
        zip.write(entriesAndContents[i + 1].getBytes(StandardCharsets.UTF_8));
        zip.closeEntry();
      }
    }
    return jar;
  }
}
