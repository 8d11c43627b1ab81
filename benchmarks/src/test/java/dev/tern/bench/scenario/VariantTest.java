package dev.tern.bench.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.bench.stack.RpcStacks;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The benchmark's columns: which congestion control each names, and where it is set. */
class VariantTest {
  @Test
  void kernelTcpStacksSetTheKernelsControlAndUdpItsOwn() {
    Variant tcp = Variant.parse("tcp:bbr");
    assertThat(tcp.label()).isEqualTo("tcp/bbr");
    assertThat(tcp.kernelCc()).isEqualTo("bbr");
    assertThat(tcp.processStack()).isEqualTo("tcp");

    Variant udp = Variant.parse("udp:cubic");
    assertThat(udp.label()).isEqualTo("udp/cubic");
    assertThat(udp.kernelCc()).as("udp runs on its own controller, not the kernel's").isNull();
    assertThat(udp.processStack()).isEqualTo("udp/cubic");

    Variant quic = Variant.parse("quic");
    assertThat(quic.label()).isEqualTo("quic");
    assertThat(quic.processStack()).isEqualTo("quic");
  }

  @Test
  void aControlAStackCannotRunIsRefusedNamingTheChoices() {
    assertThatThrownBy(() -> Variant.parse("quic:bbr")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("quic:bbr");
    assertThatThrownBy(() -> Variant.parse("udp:vegas")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("[bbr, cubic, newreno]");
  }

  @Test
  void theDefaultColumnsRunUdpOnBbrAndCubic() {
    List<String> labels = Variant.defaults(List.of("tcp", "quic", "udp")).stream()
        .map(Variant::label).toList();
    assertThat(labels).containsExactly("grpc-netty/cubic", "tcp/cubic", "tcp/bbr", "quic", "udp/bbr",
        "udp/cubic", "auto");
  }

  @Test
  void theProcessesBuildUdpWithTheNamedControllerOverTheUdpTransport() {
    assertThat(RpcStacks.byName("udp/cubic").name()).as("the transport the channel names")
        .isEqualTo("udp");
    assertThatThrownBy(() -> RpcStacks.byName("udp/vegas"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bbr, cubic, newreno");
  }
}
