package dev.tern.transport.udp.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.spi.TransportOptions;
import dev.tern.transport.udp.crypto.CryptoProviders;
import dev.tern.transport.udp.handshake.SealedTicketStore;
import dev.tern.transport.udp.handshake.ServerStaticKey;
import dev.tern.transport.udp.handshake.TicketKeys;
import java.security.SecureRandom;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The server's default ticket store, and TICKET_KEYS in its place. */
class UdpTicketKeysOptionTest {
  private static final SecureRandom RANDOM = new SecureRandom();

  private static byte[] key() {
    byte[] k = new byte[32];
    RANDOM.nextBytes(k);
    return k;
  }

  private static SealedTicketStore storeOf(TransportOptions o) {
    List<ServerStaticKey> keys = List.of(new ServerStaticKey(o.get(UdpTransportOptions
        .SERVER_KEY_ID), o.get(UdpTransportOptions.SERVER_STATIC_KEY)));
    return UdpTransportOptions.sealedTicketStore(o, keys);
  }

  @Test
  void instancesSharingAServerKeyOpenEachOthersTicketsByDefault() {
    byte[] serverKey = key();
    TransportOptions o = TransportOptions.defaults()
        .with(UdpTransportOptions.SERVER_STATIC_KEY, serverKey);
    SealedTicketStore a = storeOf(o);
    SealedTicketStore b = storeOf(o);
    assertThat(a.keys()).isEqualTo(b.keys())
        .isEqualTo(TicketKeys.derive(CryptoProviders.auto(),
            List.of(new ServerStaticKey(1, serverKey))));
    byte[] psk = key();
    assertThat(b.find(a.issue(psk, key())).psk()).isEqualTo(psk);
    assertThat(a.lifetimeMillis()).isEqualTo(SealedTicketStore.DEFAULT_LIFETIME_MILLIS);
    // Another server key: another ticket key.
    SealedTicketStore other = storeOf(o.with(UdpTransportOptions.SERVER_STATIC_KEY, key()));
    assertThat(other.find(a.issue(psk, key()))).isNull();
    // The server's configuration is built with it.
    assertThat(UdpTransportOptions.server(o)).isNotNull();
  }

  @Test
  void explicitTicketKeysReplaceTheDerivedOnes() {
    TicketKeys shared = TicketKeys.of(new TicketKeys.Key(9, key()));
    TransportOptions one = TransportOptions.defaults()
        .with(UdpTransportOptions.SERVER_STATIC_KEY, key())
        .with(UdpTransportOptions.TICKET_KEYS, shared);
    TransportOptions two = one.with(UdpTransportOptions.SERVER_STATIC_KEY, key());
    SealedTicketStore a = storeOf(one);
    assertThat(a.keys()).isEqualTo(shared);
    byte[] id = a.issue(key(), key());
    assertThat(id[0]).isEqualTo((byte) 9);
    assertThat(storeOf(two).find(id)).isNotNull();
  }
}
