package dev.tern.codegen.stub;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.palantir.javapoet.JavaFile;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Generates stubs from the checked-in descriptor set of {@code src/test/proto/golden} and compares
 * them with the checked-in expected sources in {@code src/test/resources/golden}.
 *
 * <p>To regenerate after an intended change of the generator, run
 * {@code mvn -pl codegen-plugin test -Dtest=GrpcGeneratorGoldenTest -Dtern.golden.update=true}
 * and review the diff. To regenerate the descriptor set after editing the test protos, run
 * protoc 4.36.2 from the local repository as described in {@code src/test/proto/README.md}.
 */
class GrpcGeneratorGoldenTest {
  private static final Path GOLDEN = Path.of("src/test/resources/golden");
  private static final List<String> FILES = List.of("golden/echo.proto", "golden/store.proto");

  @Test
  void generatedSourcesMatchGoldenFiles() throws IOException {
    compare(generate(false), "full");
  }

  @Test
  void liteSourcesMatchGoldenFiles() throws IOException {
    compare(generate(true), "lite");
  }

  private static Map<String, String> generate(boolean lite) throws IOException {
    FileDescriptorSet set;
    try (InputStream in = GrpcGeneratorGoldenTest.class.getResourceAsStream("/golden/golden.desc")) {
      set = FileDescriptorSet.parseFrom(in);
    }
    Map<String, String> sources = new TreeMap<>();
    for (JavaFile file : new GrpcGenerator(lite).generate(set, FILES)) {
      String path = file.packageName().replace('.', '/') + "/" + file.typeSpec().name() + ".java";
      sources.put(path, file.toString());
    }
    return sources;
  }

  private static void compare(Map<String, String> sources, String flavour) throws IOException {
    Path dir = GOLDEN.resolve(flavour);
    boolean update = Boolean.getBoolean("tern.golden.update");
    assertThat(sources).containsOnlyKeys(
        "com/example/echo/EchoGrpc.java", "com/example/echo/Echo2Grpc.java",
        "com/example/store/ItemStoreGrpc.java");
    for (Map.Entry<String, String> e : sources.entrySet()) {
      Path expected = dir.resolve(e.getKey() + ".txt");
      if (update) {
        Files.createDirectories(expected.getParent());
        Files.writeString(expected, e.getValue(), StandardCharsets.UTF_8);
      }
      assertThat(e.getValue())
          .as("%s (regenerate with -Dtern.golden.update=true)", expected)
          .isEqualTo(Files.readString(expected, StandardCharsets.UTF_8));
    }
  }
}
