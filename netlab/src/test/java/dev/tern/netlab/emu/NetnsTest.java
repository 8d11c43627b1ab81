package dev.tern.netlab.emu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class NetnsTest {
  @Test
  void namespacesOfLiveJavaProcessesAreKeptAndOthersAreStale() {
    long me = ProcessHandle.current().pid();
    assertThat(Netns.ownerAlive("tern-cli-" + me)).isTrue();
    assertThat(Netns.ownerAlive("tern-srv-" + me + "-3")).isTrue();
    assertThat(Netns.ownerAlive("tern-cli-999999999")).isFalse();
    assertThat(Netns.ownerAlive("tern-srv-999999999-1")).isFalse();
    assertThat(Netns.ownerAlive("someone-elses")).as("not a netlab name: never touched").isTrue();
  }

  @Test
  void runsCommandsInsideANamespaceWithIpNetnsExec() {
    assertThat(Netns.execCommand("tern-srv-1", List.of("java", "-version")))
        .containsExactly("ip", "netns", "exec", "tern-srv-1", "java", "-version");
    assertThatThrownBy(() -> Netns.execCommand("", List.of("x"))).hasMessageContaining("ns");
    assertThatThrownBy(() -> Netns.execCommand("n", List.of())).hasMessageContaining("command");
  }
}
