package dev.tern.codegen;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The plugin's fallback copy of tern/options.proto must declare what rpc-api's declares. */
class FallbackOptionsProtoTest {
  @Test
  void fallbackCopyDeclaresTheSameAsRpcApi() throws IOException {
    Path rpcApi = Path.of("../rpc-api/src/main/resources/tern/options.proto");
    assertThat(rpcApi).as("rpc-api's options.proto").isRegularFile();
    String fallback;
    try (InputStream in =
        getClass().getClassLoader().getResourceAsStream(ProtoPaths.FALLBACK_OPTIONS)) {
      assertThat(in).as("bundled fallback").isNotNull();
      fallback = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    assertThat(declarations(fallback))
        .isEqualTo(declarations(Files.readString(rpcApi, StandardCharsets.UTF_8)));
  }

  /** The lines that are not comments or blank, trimmed. */
  private static List<String> declarations(String proto) {
    return proto.lines().map(String::trim)
        .filter(l -> !l.isEmpty() && !l.startsWith("//"))
        .toList();
  }
}
