package dev.tern.codegen;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ProtocDiagnosticTest {
  @Test
  void parsesFileLineColumnAndMessage() {
    List<ProtocDiagnostic> d = ProtocDiagnostic.parse(
        "demo/echo.proto:32:54: \"google.protobuf.Empty\" is not defined.\n"
            + "google/protobuf/empty.proto: File not found.\n"
            + "demo/echo.proto:7: warning: Import foo.proto is unused.\n"
            + "something else\n");
    assertThat(d).containsExactly(
        new ProtocDiagnostic("demo/echo.proto", 32, 54, "\"google.protobuf.Empty\" is not defined."),
        new ProtocDiagnostic("google/protobuf/empty.proto", 0, 0, "File not found."),
        new ProtocDiagnostic("demo/echo.proto", 7, 0, "warning: Import foo.proto is unused."),
        new ProtocDiagnostic(null, 0, 0, "something else"));
    assertThat(d.get(2).isWarning()).isTrue();
    assertThat(d.get(0).format("/abs/demo/echo.proto"))
        .isEqualTo("/abs/demo/echo.proto:32:54: \"google.protobuf.Empty\" is not defined.");
  }
}
