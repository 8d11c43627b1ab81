package dev.tern.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.rpc.inprocess.InProcessTransportProvider;
import dev.tern.rpc.spi.ClientTransport;
import dev.tern.rpc.spi.ServerTransport;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.rpc.spi.TransportProvider;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class TransportSelectorTest {
  /** A provider that is only a name, an availability and whether it runs over datagrams. */
  private static class Fake implements TransportProvider {
    private final String name;
    private final String unavailable;
    private final boolean datagram;

    Fake(String name, String unavailable) {
      this(name, unavailable, false);
    }

    Fake(String name, String unavailable, boolean datagram) {
      this.name = name;
      this.unavailable = unavailable;
      this.datagram = datagram;
    }

    @Override public String name() { return name; }

    @Override public boolean isDatagram() { return datagram; }

    @Override public boolean isAvailable() { return unavailable == null; }

    @Override public String unavailableReason() { return unavailable; }

    @Override public VersionHandshake versionHandshake() { return VersionHandshake.IN_TRANSPORT; }

    @Override
    public ClientTransport newClientTransport(SocketAddress a, String authority, TransportOptions o) {
      throw new UnsupportedOperationException();
    }

    @Override
    public ServerTransport newServerTransport(SocketAddress a, TransportOptions o) {
      throw new UnsupportedOperationException();
    }
  }

  /** A transport that needs an option the channel may not set. */
  private static final class NeedsKey extends Fake {
    static final TransportOptions.Key<String> KEY = new TransportOptions.Key<>("test.key", null);

    NeedsKey(String name) {
      super(name, null, true);
    }

    @Override
    public String unusableReason(TransportOptions o) {
      return o.get(KEY) == null ? "no test.key set" : null;
    }
  }

  @Test
  void aTransportTheOptionsCannotServeIsLeftOutOfTheDefaultRaceOnly() {
    List<TransportProvider> all = List.of(new NeedsKey("udp"), new Fake("quic", null, true), new Fake("tcp", null));
    TransportMemory memory = TransportMemory.builder().build();
    TransportSelector unset = new TransportSelector(List.of(), all).configuredFor(TransportOptions.defaults());
    assertThat(unset.candidates("a:1", memory)).extracting(TransportProvider::name).containsExactly("quic", "tcp");
    TransportSelector set = new TransportSelector(List.of(), all)
        .configuredFor(TransportOptions.defaults().with(NeedsKey.KEY, "k"));
    assertThat(set.candidates("a:1", memory)).extracting(TransportProvider::name).containsExactly("udp", "tcp");
    // Named explicitly, it stays: connecting then fails with the transport's own error.
    TransportSelector named = new TransportSelector(List.of("udp"), all).configuredFor(TransportOptions.defaults());
    assertThat(named.candidates("a:1", memory)).extracting(TransportProvider::name).containsExactly("udp");
  }

  @Test
  void theFirstAvailablePreferredTransportWins() {
    TransportSelector s = new TransportSelector(List.of("quic", "tcp"),
        List.of(new Fake("tcp", null), new Fake("quic", "native library missing", true)));
    assertThat(s.select().name()).isEqualTo("tcp");
  }

  @Test
  void noUsableTransportIsUnavailableNamingEachReason() {
    TransportSelector s = new TransportSelector(List.of("quic", "udp"), List.of(new Fake("quic", "native library missing", true)));
    assertThatThrownBy(s::select).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(e.getStatus().getDescription()).contains("quic: native library missing")
          .contains("udp: not on the class path");
    });
  }

  @Test
  void theDefaultOrderPrefersUdpThenQuicThenTcpAndLeavesInProcessOut() {
    TransportSelector s = new TransportSelector(List.of(), List.of(new Fake("tcp", null), new Fake("zeta", null),
        new Fake("udp", null, true), new InProcessTransportProvider()));
    assertThat(s.preference()).containsExactly("udp", "quic", "tcp", "zeta");
    assertThat(s.select().name()).isEqualTo("udp");
  }

  @Test
  void explicitProvidersWinOverDiscoveredOnes() {
    Fake mine = new Fake("inprocess", null);
    TransportSelector s = TransportSelector.fromServiceLoader(List.of("inprocess"), List.of(mine));
    assertThat(s.select()).isSameAs(mine);
    assertThat(TransportSelector.fromServiceLoader(List.of("inprocess")).select())
        .isInstanceOf(InProcessTransportProvider.class);
  }

  @Test
  void theDefaultOrderRacesTheFirstDatagramTransportAgainstTcp() {
    TransportMemory memory = TransportMemory.builder().build();
    TransportSelector s = new TransportSelector(List.of(), List.of(new Fake("tcp", null),
        new Fake("quic", null, true), new Fake("udp", "no native library", true)));
    assertThat(s.candidates("a:1", memory)).extracting(TransportProvider::name).containsExactly("quic", "tcp");
    memory.markBroken("a:1", "quic");
    assertThat(s.candidates("a:1", memory)).extracting(TransportProvider::name).containsExactly("tcp");
    assertThat(s.candidates("b:1", memory)).as("marks are per authority")
        .extracting(TransportProvider::name).containsExactly("quic", "tcp");
  }

  @Test
  void aTransportTheCallPoliciesRefuseIsLeftOutUnlessNothingElseIsLeft() {
    TransportMemory memory = TransportMemory.builder().build();
    TransportSelector s = new TransportSelector(List.of("quic", "tcp"), List.of(new Fake("tcp", null),
        new Fake("quic", null, true)));
    assertThat(s.candidates("a:1", memory, t -> !t.equals("quic"))).extracting(TransportProvider::name)
        .containsExactly("tcp");
    assertThat(s.candidates("a:1", memory, t -> false)).as("every one refused: the refusals are not heeded")
        .extracting(TransportProvider::name).containsExactly("quic", "tcp");
    memory.markBroken("a:1", "quic");
    assertThat(s.candidates("a:1", memory, t -> !t.equals("tcp"))).as("a broken mark still holds")
        .extracting(TransportProvider::name).containsExactly("tcp");
  }

  @Test
  void whetherATransportRunsOverDatagramsIsTheProvidersWordNotItsName() {
    TransportMemory memory = TransportMemory.builder().build();
    TransportSelector thirdParty = new TransportSelector(List.of(), List.of(new Fake("tcp", null),
        new Fake("pigeon", null, true)));
    assertThat(thirdParty.candidates("a:1", memory)).as("a datagram transport under a new name races tcp")
        .extracting(TransportProvider::name).containsExactly("pigeon", "tcp");
    TransportSelector streamNamedUdp = new TransportSelector(List.of(), List.of(new Fake("tcp", null),
        new Fake("udp", null, false), new Fake("quic", null, true)));
    assertThat(streamNamedUdp.candidates("a:1", memory)).as("a stream transport named udp is one")
        .extracting(TransportProvider::name).containsExactly("quic", "udp");
  }

  @Test
  void theLastWinnerGoesFirstOnlyAheadOfWhatItBeatAndOfNoMarkedTransport() {
    AtomicLong clock = new AtomicLong();
    TransportMemory memory = TransportMemory.builder().ticker(clock::get).build();
    TransportSelector s = new TransportSelector(List.of(), List.of(new Fake("tcp", null),
        new Fake("udp", null, true)));
    memory.markWon("a:1", "tcp", 0, List.of());
    assertThat(s.candidates("a:1", memory)).as("tcp won a race udp was not in (a breaker kept it out)")
        .extracting(TransportProvider::name).containsExactly("udp", "tcp");
    memory.markWon("a:1", "tcp", 0, List.of("udp"));
    assertThat(s.candidates("a:1", memory)).as("tcp beat udp")
        .extracting(TransportProvider::name).containsExactly("tcp", "udp");
    memory.markWon("a:1", "tcp", 0, List.of());
    assertThat(s.candidates("a:1", memory)).as("a straight win keeps what tcp beat before")
        .extracting(TransportProvider::name).containsExactly("tcp", "udp");
    clock.addAndGet(TimeUnit.MINUTES.toNanos(5));
    assertThat(s.candidates("a:1", memory)).as("five minutes after tcp beat it, udp races first again")
        .extracting(TransportProvider::name).containsExactly("udp", "tcp");
    memory.markWon("a:1", "tcp", 0, List.of("udp"));
    clock.addAndGet(TimeUnit.MINUTES.toNanos(9));
    assertThat(s.candidates("a:1", memory)).as("beaten twice in a row: ten minutes")
        .extracting(TransportProvider::name).containsExactly("tcp", "udp");
    clock.addAndGet(TimeUnit.MINUTES.toNanos(1));
    assertThat(s.candidates("a:1", memory)).extracting(TransportProvider::name).containsExactly("udp", "tcp");
    memory.markWon("a:1", "tcp", 0, List.of("udp"));
    assertThat(s.candidates("b:1", memory)).extracting(TransportProvider::name).containsExactly("udp", "tcp");
    TransportSelector named = new TransportSelector(List.of("udp", "tcp"), List.of(new Fake("tcp", null),
        new Fake("udp", null, true)));
    assertThat(named.candidates("a:1", memory)).as("an order the channel gave is kept")
        .extracting(TransportProvider::name).containsExactly("udp", "tcp");

    memory.markBroken("a:1", "udp");
    assertThat(s.candidates("a:1", memory)).extracting(TransportProvider::name).containsExactly("tcp");
    clock.addAndGet(TimeUnit.MINUTES.toNanos(5));
    assertThat(s.candidates("a:1", memory)).as("once udp's mark expires, it races first again")
        .extracting(TransportProvider::name).containsExactly("udp", "tcp");
  }

  @Test
  void aBrokenDatagramTransportGivesWayToTheNextOne() {
    TransportMemory memory = TransportMemory.builder().build();
    TransportSelector s = new TransportSelector(List.of(), List.of(new Fake("tcp", null),
        new Fake("quic", null, true), new Fake("udp", null, true)));
    memory.markBroken("a:1", "udp");
    assertThat(s.candidates("a:1", memory)).extracting(TransportProvider::name).containsExactly("quic", "tcp");
  }

  @Test
  void explicitTransportsAreRacedInTheOrderGivenAndAllBrokenStillTriesTheFirst() {
    TransportMemory memory = TransportMemory.builder().build();
    TransportSelector s = new TransportSelector(List.of("tcp", "udp", "quic"), List.of(new Fake("tcp", null),
        new Fake("quic", null, true), new Fake("udp", null, true)));
    assertThat(s.explicit()).isTrue();
    assertThat(s.candidates("a:1", memory)).extracting(TransportProvider::name).containsExactly("tcp", "udp", "quic");
    memory.markBroken("a:1", "tcp");
    memory.markBroken("a:1", "udp");
    memory.markBroken("a:1", "quic");
    assertThat(s.candidates("a:1", memory)).extracting(TransportProvider::name).containsExactly("tcp");
  }
}
