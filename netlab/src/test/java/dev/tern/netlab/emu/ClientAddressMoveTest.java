package dev.tern.netlab.emu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ClientAddressMoveTest {
  @Test
  void movesStayInTheBenchmarkingRange() {
    assertThat(NetlabEmulator.movedAddress(1)).isEqualTo("198.18.2.1");
    assertThat(NetlabEmulator.movedAddress(250)).isEqualTo("198.18.251.1");
    assertThatThrownBy(() -> NetlabEmulator.movedAddress(0)).hasMessageContaining("was 0");
    assertThatThrownBy(() -> NetlabEmulator.movedAddress(251)).hasMessageContaining("was 251");
  }

  @Test
  void routesBackBeforeTheClientUsesTheNewAddressAndRemovesTheOldOneLast() {
    List<List<String>> cmds = NetlabEmulator.moveCommands("cli", "srv", "tern0", "198.18.1.1", "198.18.2.1",
        "198.19.1.1");
    assertThat(cmds.get(0)).containsExactly("ip", "-n", "srv", "route", "replace", "198.18.2.1/32", "dev", "tern0");
    assertThat(cmds.get(2)).containsExactly("ip", "-n", "cli", "addr", "add", "198.18.2.1", "peer", "198.19.1.1/32", "dev",
        "tern0");
    assertThat(cmds.get(1)).endsWith("net.ipv4.conf.tern0.promote_secondaries=1");
    assertThat(cmds.get(3)).containsSequence("route", "replace", "198.19.1.1/32").endsWith("src", "198.18.2.1");
    assertThat(cmds.get(4)).containsExactly("ip", "-n", "cli", "addr", "del", "198.18.1.1", "peer", "198.19.1.1/32", "dev",
        "tern0");
    assertThat(cmds.get(5)).isEqualTo(cmds.get(3));
  }
}
