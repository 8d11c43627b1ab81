package dev.tern.transport.udp.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The session store's server name for tickets, which a file-backed store keeps across runs. */
class ClientTicketsTest {

  @Test
  void theServerNameHasThePinnedKeyInLowerCaseHex() {
    byte[] key = new byte[32];
    for (int i = 0; i < 32; i++) {
      key[i] = (byte) (i * 8 + 7);
    }
    assertThat(ClientTickets.serverName("example.com:443", 3, key)).isEqualTo(
        "example.com:443#udp-key-3:070f171f272f373f474f575f676f777f878f979fa7afb7bfc7cfd7dfe7eff7ff");
    Random r = new Random(1);
    for (int i = 0; i < 100; i++) {
      r.nextBytes(key);
      assertThat(ClientTickets.serverName("h", i, key))
          .isEqualTo("h#udp-key-" + i + ":" + HexFormat.of().formatHex(key));
    }
  }
}
