package dev.tern.transport.udp.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.spi.TransportOptions;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a {@code udp} server advertises in {@code alt-svc}, and what a client makes of it. */
class UdpAdvertisementTest {
  private final UdpTransportProvider provider = new UdpTransportProvider();
  private final byte[] serverKey = UdpTransportOptions.newServerKey();
  private final TransportOptions server = TransportOptions.defaults()
      .with(UdpTransportOptions.SERVER_STATIC_KEY, serverKey).with(UdpTransportOptions.SERVER_KEY_ID, 3)
      .with(TransportOptions.PROTOCOL_VERSIONS, new int[] {2, 1});

  @Test
  void theServerAdvertisesItsPublicKeyKeyIdAndVersions() {
    Map<String, String> p = provider.altSvcParameters(server);
    assertThat(provider.altSvcProtocolId()).isEqualTo("tern-udp");
    assertThat(Base64.getUrlDecoder().decode(p.get("key"))).isEqualTo(UdpTransportOptions.publicKeyOf(serverKey));
    assertThat(p).containsEntry("kid", "3").containsEntry("v", "544e0002").containsEntry("rpc", "2,1");
  }

  @Test
  void aClientPinsTheAdvertisedKeyUnlessItPinnedOneItself() {
    Map<String, String> p = provider.altSvcParameters(server);
    TransportOptions channel = TransportOptions.defaults();
    assertThat(provider.unusableReason(channel)).isNotNull();
    TransportOptions o = provider.optionsForAlternative(channel, p);
    assertThat(o.get(UdpTransportOptions.PINNED_SERVER_KEY)).isEqualTo(UdpTransportOptions.publicKeyOf(serverKey));
    assertThat(o.get(UdpTransportOptions.SERVER_KEY_ID)).isEqualTo(3);
    assertThat(provider.unusableReason(o)).isNull();
    byte[] own = new byte[32];
    TransportOptions pinned = channel.with(UdpTransportOptions.PINNED_SERVER_KEY, own);
    assertThat(provider.optionsForAlternative(pinned, p).get(UdpTransportOptions.PINNED_SERVER_KEY)).isSameAs(own);
  }

  @Test
  void anAdvertisementTheClientCannotUseIsRefused() {
    Map<String, String> good = provider.altSvcParameters(server);
    TransportOptions channel = TransportOptions.defaults();
    for (String[] change : new String[][] {{"v", "544e0003"}, {"v", "zz"}, {"rpc", "7"}, {"key", "short"},
        {"key", "!!!"}, {"kid", "one"}, {"key", null}, {"kid", null}, {"v", null}}) {
      Map<String, String> p = new HashMap<>(good);
      if (change[1] == null) {
        p.remove(change[0]);
      } else {
        p.put(change[0], change[1]);
      }
      assertThat(provider.optionsForAlternative(channel, p)).as(change[0] + "=" + change[1]).isNull();
    }
    Map<String, String> oneOfSeveral = new HashMap<>(good);
    oneOfSeveral.put("v", "544e0009,544e0002");
    assertThat(provider.optionsForAlternative(channel, oneOfSeveral)).isNotNull();
  }
}
