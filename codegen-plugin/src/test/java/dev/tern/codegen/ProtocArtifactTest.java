package dev.tern.codegen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ProtocArtifactTest {
  @Test
  void mapsTheOperatingSystemsProtocIsBuiltFor() {
    assertThat(ProtocArtifact.classifier("Linux", "amd64")).isEqualTo("linux-x86_64");
    assertThat(ProtocArtifact.classifier("Linux", "aarch64")).isEqualTo("linux-aarch_64");
    assertThat(ProtocArtifact.classifier("Mac OS X", "aarch64")).isEqualTo("osx-aarch_64");
    assertThat(ProtocArtifact.classifier("Mac OS X", "x86_64")).isEqualTo("osx-x86_64");
    assertThat(ProtocArtifact.classifier("Windows 11", "amd64")).isEqualTo("windows-x86_64");
  }

  @Test
  void namesTheValueThatHasNoProtoc() {
    assertThatThrownBy(() -> ProtocArtifact.classifier("SunOS", "sparcv9"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("SunOS");
    assertThatThrownBy(() -> ProtocArtifact.classifier("Linux", "riscv64"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("riscv64");
  }
}
