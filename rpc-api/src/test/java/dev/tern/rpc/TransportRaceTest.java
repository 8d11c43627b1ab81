package dev.tern.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import dev.tern.rpc.ScriptedProvider.Script;
import dev.tern.rpc.inprocess.InProcessAddress;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** First-contact racing, fallback and per-authority memory, with scripted in-process transports. */
@Timeout(30)
class TransportRaceTest {
  private final AtomicLong clock = new AtomicLong();
  private final TransportMemory memory = TransportMemory.builder().ticker(clock::get).build();
  private final ScriptedProvider udp = new ScriptedProvider("udp", Script.WORKS, true);
  private final ScriptedProvider tcp = new ScriptedProvider("tcp", Script.WORKS, false);
  private final List<ManagedChannel> channels = new ArrayList<>();
  private InProcessAddress address;
  private Server server;

  @BeforeEach
  void setUp() throws Exception {
    address = new InProcessAddress("race-" + UUID.randomUUID());
    server = TernServerBuilder.create().listen("inprocess", address)
        .addService(TestMethods.service()).build().start();
  }

  @AfterEach
  void tearDown() throws Exception {
    for (ManagedChannel c : channels) {
      c.shutdownNow();
      assertThat(c.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
    server.shutdownNow();
    assertThat(server.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    assertThat(udp.live()).as("udp transports not terminated").isZero();
    assertThat(tcp.live()).as("tcp transports not terminated").isZero();
  }

  private TernChannelBuilder builder(long headStartMillis) {
    return TernChannelBuilder.forAddress(address).usePlaintext().addTransportProvider(udp)
        .addTransportProvider(tcp).transportMemory(memory)
        .transportRaceHeadStart(headStartMillis, TimeUnit.MILLISECONDS);
  }

  private ManagedChannel track(ManagedChannel c) {
    channels.add(c);
    return c;
  }

  private static String call(ManagedChannel c) {
    return ClientCalls.blockingUnaryCall(c, TestMethods.UNARY, CallOptions.DEFAULT, "hi");
  }

  private static void await(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        fail("timed out waiting until " + what);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
    }
  }

  @Test
  void workingUdpCarriesTheCallsAndTheTcpRacerIsClosed() throws Exception {
    CompletableFuture<Void> udpGate = new CompletableFuture<>();
    CompletableFuture<Void> tcpGate = new CompletableFuture<>();
    udp.gate = udpGate;
    tcp.gate = tcpGate;
    CompletableFuture<ConnectionInfo> chosen = new CompletableFuture<>();
    ManagedChannel c = track(builder(0).connectionListener(chosen::complete).build());
    CompletableFuture<String> reply = CompletableFuture.supplyAsync(() -> call(c));
    await(() -> udp.created.get() == 1 && tcp.created.get() == 1, "both racers started");
    udpGate.complete(null);
    assertThat(reply.get(10, TimeUnit.SECONDS)).isEqualTo("hi");
    assertThat(TernChannels.selectedTransport(c)).isEqualTo("udp");
    assertThat(TernChannels.selectionReason(c)).startsWith("udp: ready first, ").endsWith("; tcp was still connecting");
    assertThat(TernChannels.connectionInfo(c).transport()).isEqualTo("udp");
    assertThat(chosen.get(5, TimeUnit.SECONDS).transport()).isEqualTo("udp");
    tcpGate.complete(null);
    await(() -> tcp.terminated.get() == 1, "the losing tcp transport terminated");
    assertThat(tcp.streams.get()).as("calls on the loser").isZero();
    assertThat(memory.lastWorked(c.authority())).isEqualTo("udp");
    assertThat(memory.isBroken(c.authority(), "tcp")).isFalse();
  }

  @Test
  void blackHoledUdpFallsBackToTcpAfterTheHeadStartAndIsMarkedBroken() throws Exception {
    udp.script = Script.BLACK_HOLE;
    ManagedChannel first = track(builder(200).handshakeTimeout(500, TimeUnit.MILLISECONDS).build());
    long start = System.nanoTime();
    assertThat(call(first)).isEqualTo("hi");
    long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertThat(tookMillis).as("TCP starts only after the head start").isGreaterThanOrEqualTo(200);
    assertThat(TernChannels.selectedTransport(first)).isEqualTo("tcp");
    assertThat(TernChannels.selectionReason(first)).as("while udp's handshake was pending")
        .startsWith("tcp: ready first, ").endsWith("; udp was still connecting");
    await(() -> memory.isBroken(first.authority(), "udp"), "udp marked broken once its handshake timed out");
    assertThat(udp.terminated.get()).isEqualTo(1);

    ManagedChannel second = track(builder(10_000).build());
    assertThat(call(second)).isEqualTo("hi");
    assertThat(TernChannels.selectedTransport(second)).isEqualTo("tcp");
    assertThat(TernChannels.selectionReason(second)).isEqualTo("tcp: the one transport left to try; udp left out:"
        + " marked broken for " + second.authority() + " after an earlier failure");
    assertThat(udp.created.get()).as("a broken udp is not tried again").isEqualTo(1);
  }

  @Test
  void onFirstContactACallAllowedEarlyDataWaitsForTheWinnerInsteadOfTheBlackHoledFirstRacer() {
    udp.script = Script.BLACK_HOLE;
    ManagedChannel c = track(builder(200).handshakeTimeout(30, TimeUnit.SECONDS).build());
    long start = System.nanoTime();
    String reply = ClientCalls.blockingUnaryCall(c, TestMethods.UNARY,
        TernCallOptions.withEarlyData(CallOptions.DEFAULT, true).withDeadlineAfter(10, TimeUnit.SECONDS), "hi");
    assertThat(reply).isEqualTo("hi");
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
        .as("well before udp's handshake timeout").isLessThan(10_000);
    assertThat(TernChannels.selectedTransport(c)).isEqualTo("tcp");
    assertThat(udp.streams.get()).as("nothing was handed to the black-holed racer").isZero();
  }

  @Test
  void udpFailingFastStartsTcpAtOnceWithoutWaitingForTheHeadStart() {
    udp.script = Script.FAILS;
    ManagedChannel c = track(builder(60_000).build());
    assertThat(call(c)).isEqualTo("hi");
    assertThat(TernChannels.selectedTransport(c)).isEqualTo("tcp");
    assertThat(TernChannels.selectionReason(c)).startsWith("tcp: ready first, ")
        .endsWith("; udp failed (UNAVAILABLE: port unreachable (scripted))");
    assertThat(memory.isBroken(c.authority(), "udp")).isTrue();
    assertThat(memory.brokenForNanos(c.authority(), "udp")).isEqualTo(TimeUnit.MINUTES.toNanos(5));
  }

  @Test
  void aThirdPartyTransportThatSaysItRunsOverDatagramsIsRacedAgainstTcp() throws Exception {
    ScriptedProvider pigeon = new ScriptedProvider("pigeon", Script.BLACK_HOLE, true);
    ManagedChannel c = track(TernChannelBuilder.forAddress(address).usePlaintext().addTransportProvider(pigeon)
        .addTransportProvider(tcp).transportMemory(memory).transportRaceHeadStart(200, TimeUnit.MILLISECONDS)
        .handshakeTimeout(500, TimeUnit.MILLISECONDS).build());
    long start = System.nanoTime();
    assertThat(call(c)).isEqualTo("hi");
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
        .as("tcp started only after the datagram transport's head start").isGreaterThanOrEqualTo(200);
    assertThat(TernChannels.selectedTransport(c)).isEqualTo("tcp");
    assertThat(pigeon.created.get()).as("the datagram transport went first").isEqualTo(1);
    await(() -> memory.isBroken(c.authority(), "pigeon"), "pigeon marked broken once its handshake timed out");
    c.shutdownNow();
    assertThat(c.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    assertThat(pigeon.live()).isZero();
  }

  @Test
  void aRememberedFirstRacerThatCannotSendEarlyDataIsNotHandedEarlyCalls() {
    tcp.script = Script.BLACK_HOLE;
    ManagedChannel c = track(builder(200).transports("tcp", "udp").handshakeTimeout(30, TimeUnit.SECONDS).build());
    memory.markWorked(c.authority(), "tcp");
    String reply = ClientCalls.blockingUnaryCall(c, TestMethods.UNARY,
        TernCallOptions.withEarlyData(CallOptions.DEFAULT, true).withDeadlineAfter(10, TimeUnit.SECONDS), "hi");
    assertThat(reply).isEqualTo("hi");
    assertThat(TernChannels.selectedTransport(c)).isEqualTo("udp");
    assertThat(tcp.streams.get()).as("nothing was handed to the black-holed tcp racer").isZero();
  }

  @Test
  void whenEveryTransportFailsTheCallIsUnavailableNamingEach() {
    udp.script = Script.FAILS;
    tcp.script = Script.FAILS;
    ManagedChannel c = track(builder(60_000).build());
    assertThatThrownBy(() -> call(c)).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(e.getStatus().getDescription()).contains("udp: UNAVAILABLE: port unreachable (scripted)")
          .contains("tcp: UNAVAILABLE: port unreachable (scripted)");
    });
    assertThat(memory.isBroken(c.authority(), "udp")).as("nothing worked, so nothing is marked").isFalse();
  }

  @Test
  void theRaceRunsAgainWhenTheMarkExpiresAndAfterANetworkChange() {
    udp.script = Script.FAILS;
    ManagedChannel a = track(builder(60_000).build());
    assertThat(call(a)).isEqualTo("hi");
    String authority = a.authority();
    assertThat(memory.isBroken(authority, "udp")).isTrue();

    udp.script = Script.WORKS;
    clock.addAndGet(TimeUnit.MINUTES.toNanos(5) - 1);
    ManagedChannel b = track(builder(60_000).build());
    assertThat(call(b)).isEqualTo("hi");
    assertThat(TernChannels.selectedTransport(b)).as("still marked: straight to tcp").isEqualTo("tcp");
    assertThat(udp.created.get()).isEqualTo(1);

    clock.addAndGet(1);
    ManagedChannel c = track(builder(60_000).build());
    assertThat(call(c)).isEqualTo("hi");
    assertThat(TernChannels.selectedTransport(c)).as("mark expired: udp raced and won").isEqualTo("udp");
    assertThat(memory.lastWorked(authority)).isEqualTo("udp");

    udp.script = Script.FAILS;
    ManagedChannel d = track(builder(60_000).build());
    assertThat(call(d)).isEqualTo("hi");
    assertThat(memory.brokenForNanos(authority, "udp")).as("a success cleared the earlier marks")
        .isEqualTo(TimeUnit.MINUTES.toNanos(5));

    memory.networkChanged();
    assertThat(memory.isBroken(authority, "udp")).isFalse();
    assertThat(memory.lastWorked(authority)).isNull();
    udp.script = Script.WORKS;
    ManagedChannel e = track(builder(60_000).build());
    assertThat(call(e)).isEqualTo("hi");
    assertThat(TernChannels.selectedTransport(e)).isEqualTo("udp");
  }

  @Test
  void theTransportThatWorkedGetsTwiceItsLastConnectTimeBeforeTcpStarts() {
    ManagedChannel a = track(builder(60_000).build());
    assertThat(call(a)).isEqualTo("hi");
    assertThat(memory.lastWorked(a.authority())).isEqualTo("udp");

    // udp took 200 ms to connect last time: with no head start of its own, the next channel still
    // gives it 400 ms before starting tcp, so a udp that connects at once wins alone.
    memory.markWorked(a.authority(), "udp", TimeUnit.MILLISECONDS.toNanos(200));
    assertThat(memory.lastConnectNanos(a.authority())).isEqualTo(TimeUnit.MILLISECONDS.toNanos(200));
    ManagedChannel b = track(builder(0).build());
    assertThat(call(b)).isEqualTo("hi");
    assertThat(TernChannels.selectedTransport(b)).isEqualTo("udp");
    assertThat(tcp.created.get()).as("tcp never started").isZero();

    // udp black-holed since: tcp starts after those 400 ms, long before udp's handshake timeout.
    // (b's own connect, a fraction of a millisecond, replaced the 200 ms: set it again.)
    memory.markWorked(a.authority(), "udp", TimeUnit.MILLISECONDS.toNanos(200));
    udp.script = Script.BLACK_HOLE;
    ManagedChannel c = track(builder(0).handshakeTimeout(30, TimeUnit.SECONDS).build());
    long start = System.nanoTime();
    assertThat(call(c)).isEqualTo("hi");
    long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertThat(tookMillis).isGreaterThanOrEqualTo(400).isLessThan(10_000);
    assertThat(TernChannels.selectedTransport(c)).isEqualTo("tcp");
  }

  @Test
  void theTransportRememberedAsTheLastWinnerIsTriedFirst() {
    ManagedChannel c = track(builder(60_000).build());
    memory.markWorked(c.authority(), "tcp");
    assertThat(call(c)).isEqualTo("hi");
    assertThat(TernChannels.selectedTransport(c)).isEqualTo("tcp");
    assertThat(tcp.created.get()).isEqualTo(1);
    assertThat(udp.created.get()).as("tcp went first and won within its head start").isZero();
  }

  @Test
  void tcpThatBeatASlowUdpStartsFirstNextTimeAndUdpStillFollowsIfTcpFails() throws Exception {
    CompletableFuture<Void> udpGate = new CompletableFuture<>();
    udp.gate = udpGate;
    ManagedChannel a = track(builder(0).build());
    assertThat(call(a)).isEqualTo("hi");
    assertThat(TernChannels.selectedTransport(a)).as("udp still connecting when tcp was ready").isEqualTo("tcp");
    udpGate.complete(null);
    await(() -> udp.terminated.get() == 1, "the udp loser, ready late, closed");
    assertThat(memory.isBroken(a.authority(), "udp")).as("slower is not broken").isFalse();

    ManagedChannel b = track(builder(60_000).build());
    assertThat(call(b)).isEqualTo("hi");
    assertThat(TernChannels.selectedTransport(b)).isEqualTo("tcp");
    assertThat(udp.created.get()).as("tcp started first, udp never had to").isEqualTo(1);
    assertThat(tcp.created.get()).isEqualTo(2);

    ManagedChannel c = track(builder(60_000).build());
    assertThat(call(c)).isEqualTo("hi");
    assertThat(TernChannels.selectedTransport(c)).as("a straight win keeps tcp first").isEqualTo("tcp");
    assertThat(udp.created.get()).isEqualTo(1);

    tcp.script = Script.BLACK_HOLE;
    ManagedChannel d = track(builder(200).handshakeTimeout(30, TimeUnit.SECONDS).build());
    long start = System.nanoTime();
    assertThat(call(d)).isEqualTo("hi");
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
        .as("udp started after tcp's head start").isGreaterThanOrEqualTo(200).isLessThan(10_000);
    assertThat(TernChannels.selectedTransport(d)).isEqualTo("udp");
    assertThat(memory.lastWorked(d.authority())).isEqualTo("udp");
  }

  @Test
  void aRememberedConnectTimeNeverShortensTheHeadStart() {
    ManagedChannel a = track(builder(60_000).build());
    assertThat(call(a)).isEqualTo("hi");
    udp.script = Script.BLACK_HOLE;
    // The fake connected in well under a millisecond; the 1 s head start still holds.
    ManagedChannel b = track(builder(1_000).handshakeTimeout(30, TimeUnit.SECONDS).build());
    long start = System.nanoTime();
    assertThat(call(b)).isEqualTo("hi");
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isGreaterThanOrEqualTo(1_000);
    assertThat(TernChannels.selectedTransport(b)).isEqualTo("tcp");
  }

  @Test
  void aNegativeConnectTimeIsRefused() {
    assertThatThrownBy(() -> memory.markWorked("a:1", "udp", -1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
  }

  @Test
  void aCallStartedOnTheWinnerFailsWithItAndIsNotReplayedOnAnotherTransport() throws Exception {
    ManagedChannel c = track(builder(60_000).build());
    assertThat(call(c)).isEqualTo("hi");
    java.util.concurrent.Future<String> slow = ClientCalls.futureUnaryCall(
        c.newCall(TestMethods.SLOW, CallOptions.DEFAULT), "never answered");
    await(() -> udp.streams.get() == 2, "the slow call reached the udp transport");
    udp.transports.get(0).shutdownNow(Status.UNAVAILABLE.withDescription("link lost"));
    assertThatThrownBy(() -> slow.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(StatusRuntimeException.class)
        .cause().satisfies(e -> assertThat(Status.fromThrowable(e).getCode()).isEqualTo(Status.Code.UNAVAILABLE));
    assertThat(tcp.streams.get()).as("nothing replayed over tcp").isZero();
    await(() -> TernChannels.selectedTransport(c) == null, "the channel let go of the failed transport");

    assertThat(call(c)).as("the next call reconnects, straight to the udp that worked").isEqualTo("hi");
    assertThat(TernChannels.selectedTransport(c)).isEqualTo("udp");
    assertThat(udp.created.get()).isEqualTo(2);
    assertThat(tcp.created.get()).isZero();
  }

  @Test
  void aChannelNamingSeveralTransportsRacesThemInTheOrderGiven() {
    udp.script = Script.FAILS;
    ManagedChannel c = track(builder(60_000).transports("tcp", "udp").build());
    assertThat(call(c)).isEqualTo("hi");
    assertThat(TernChannels.selectedTransport(c)).isEqualTo("tcp");
    assertThat(udp.created.get()).as("tcp went first and won before udp's turn").isZero();
  }

  @Test
  void aChannelNamingOneTransportSaysSo() {
    ManagedChannel c = track(builder(0).transports("tcp").build());
    assertThat(TernChannels.selectionReason(c)).as("before a connection").isNull();
    assertThat(call(c)).isEqualTo("hi");
    assertThat(TernChannels.selectionReason(c)).isEqualTo("tcp: the one transport the channel names");
  }

  @Test
  void aChannelNamingOneTransportUsesOnlyIt() {
    tcp.script = Script.FAILS;
    ManagedChannel c = track(builder(0).transports("tcp").build());
    assertThatThrownBy(() -> call(c)).isInstanceOfSatisfying(StatusRuntimeException.class, e ->
        assertThat(e.getStatus().getDescription()).contains("over tcp failed"));
    assertThat(udp.created.get()).isZero();
  }

  @Test
  void aLoserClosedBecauseTheChannelShutDownIsNotMarkedBroken() throws Exception {
    udp.script = Script.BLACK_HOLE;
    ManagedChannel c = builder(0).build();
    assertThat(call(c)).isEqualTo("hi");
    assertThat(TernChannels.selectedTransport(c)).isEqualTo("tcp");
    assertThat(udp.live()).as("the udp racer is still trying").isEqualTo(1);
    c.shutdown();
    assertThat(c.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    assertThat(udp.live()).isZero();
    assertThat(memory.isBroken(c.authority(), "udp")).isFalse();
  }

  @Test
  void shuttingDownMidRaceClosesEveryRacer() throws Exception {
    udp.script = Script.BLACK_HOLE;
    tcp.script = Script.BLACK_HOLE;
    ManagedChannel c = builder(0).build();
    assertThat(c.getState(true)).isNotNull();
    await(() -> udp.created.get() == 1 && tcp.created.get() == 1, "both racers started");
    c.shutdown();
    assertThat(c.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    assertThat(udp.shutdowns.get()).isEqualTo(1);
    assertThat(tcp.shutdowns.get()).isEqualTo(1);
    assertThat(memory.isBroken(c.authority(), "udp")).isFalse();
  }

  /**
   * A connection that was ready before the server spoke and ends at once is a failed attempt:
   * the call fails, the channel reports TRANSIENT_FAILURE and waits out its backoff before the
   * next connect, instead of reconnecting as fast as the server refuses.
   */
  @Test
  void aConnectionGoneBeforeTheServerSpokeIsAFailedAttemptAndTheChannelBacksOff() throws Exception {
    udp.script = Script.READY_THEN_REFUSED;
    ManagedChannel c = track(TernChannelBuilder.forAddress(address).usePlaintext().addTransportProvider(udp)
        .transports("udp").transportMemory(memory).initialReconnectBackoff(5, TimeUnit.SECONDS).build());
    io.grpc.StatusRuntimeException e = org.assertj.core.api.Assertions.catchThrowableOfType(() -> call(c),
        io.grpc.StatusRuntimeException.class);
    assertThat(e).isNotNull();
    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    // The refusal itself, or the in-process transport's word for a stream it met shut down.
    assertThat(e.getStatus().getDescription()).containsAnyOf("refused after its handshake", "shut down");
    // The transport tells the channel of its end on its own event thread, which may run after the
    // failed call has reached this thread; the backoff (4 s or more) keeps TRANSIENT_FAILURE in place.
    org.awaitility.Awaitility.await("TRANSIENT_FAILURE after the refusal").atMost(java.time.Duration.ofSeconds(2))
        .until(() -> c.getState(false) == io.grpc.ConnectivityState.TRANSIENT_FAILURE);
    // The call was sent once and refused, then replayed once (transparent retry) on a second
    // connection at most; the backoff (4 s or more with jitter) holds every later connect back.
    int made = udp.created.get();
    assertThat(made).isBetween(1, 2);
    org.awaitility.Awaitility.await("no connect during the backoff").during(java.time.Duration.ofMillis(500))
        .atMost(java.time.Duration.ofSeconds(2)).until(() -> udp.created.get() == made);
  }
}
