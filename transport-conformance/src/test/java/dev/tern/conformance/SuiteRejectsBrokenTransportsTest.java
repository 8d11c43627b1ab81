package dev.tern.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.inprocess.InProcessAddress;
import dev.tern.rpc.inprocess.InProcessTransportProvider;
import dev.tern.rpc.spi.TransportProvider;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;
import org.junit.platform.engine.discovery.DiscoverySelectors;

/**
 * The suite catches broken transports: each faulty double fails the cases that cover its fault,
 * and the genuine in-process transport passes the very same cases.
 */
class SuiteRejectsBrokenTransportsTest {
  private static final List<String> DELIVERY_CASES = List.of("clientStreamingDeliversEveryMessageInOrder",
      "bidiStreamingPingPongs", "receiverGetsExactlyAsManyMessagesAsItRequested");
  private static final List<String> FLOW_CONTROL_CASES = List.of("receiverGetsExactlyAsManyMessagesAsItRequested",
      "clientSenderIsPushedBackByTheServersWindow", "serverSenderIsPushedBackByTheClientsWindow");
  private static final List<String> CANCEL_CASES = List.of("clientCancelReachesTheServer",
      "deadlineExpiryCancelsOnBothSides");
  private static final List<String> LEAK_CASES = List.of("noBuffersLeakAfterCallsOfEveryKind");
  private static final List<String> CONNECTION_CASES =
      List.of("transportFilterSeesEachConnectionOnceEachWayAndCallsCarryItsAttributes");

  private static final String ON_PURPOSE = "dev.tern.conformance.SuiteRejectsBrokenTransportsTest#launchedOnPurpose";
  private static volatile boolean launching;

  /** Whether the doubles' suites run because this test launched them (not by a build's test scan). */
  static boolean launchedOnPurpose() {
    return launching;
  }

  /** The suite with short waits, so failing cases fail fast. */
  abstract static class FastSuite extends AbstractTransportConformanceTest {
    @Override
    protected SocketAddress newServerAddress() {
      return new InProcessAddress("faulty-" + UUID.randomUUID());
    }

    @Override
    protected Duration timeout() {
      return Duration.ofSeconds(4);
    }
  }

  @EnabledIf(ON_PURPOSE)
  static final class Genuine extends FastSuite {
    @Override protected TransportProvider transportProvider() { return new InProcessTransportProvider(); }
  }

  @EnabledIf(ON_PURPOSE)
  static final class Dropping extends FastSuite {
    @Override protected TransportProvider transportProvider() { return new FaultyTransports.DropsAMessage(); }
  }

  @EnabledIf(ON_PURPOSE)
  static final class IgnoringRequestN extends FastSuite {
    @Override protected TransportProvider transportProvider() { return new FaultyTransports.IgnoresRequestN(); }
  }

  @EnabledIf(ON_PURPOSE)
  static final class IgnoringCancel extends FastSuite {
    @Override protected TransportProvider transportProvider() { return new FaultyTransports.IgnoresCancel(); }
  }

  @EnabledIf(ON_PURPOSE)
  static final class Leaking extends FastSuite {
    @Override protected TransportProvider transportProvider() { return new FaultyTransports.LeaksABuffer(); }
  }

  @EnabledIf(ON_PURPOSE)
  static final class ForgettingConnections extends FastSuite {
    @Override protected TransportProvider transportProvider() { return new FaultyTransports.ForgetsConnections(); }
  }

  private static TestExecutionSummary run(Class<?> suite, List<String> cases) {
    LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
        .selectors(cases.stream().map(m -> DiscoverySelectors.selectMethod(suite, m)).collect(Collectors.toList()))
        .build();
    Launcher launcher = LauncherFactory.create();
    SummaryGeneratingListener listener = new SummaryGeneratingListener();
    launching = true;
    try {
      launcher.execute(request, listener);
    } finally {
      launching = false;
    }
    TestExecutionSummary summary = listener.getSummary();
    assertThat(summary.getTestsFoundCount()).as("cases found in %s", suite.getSimpleName()).isEqualTo(cases.size());
    assertThat(summary.getTestsSkippedCount() + summary.getTestsAbortedCount()).as("cases not run").isZero();
    if (suite == Genuine.class) {
      StringBuilder why = new StringBuilder();
      summary.getFailures().forEach(f -> why.append(f.getTestIdentifier().getDisplayName()).append(": ")
          .append(f.getException()).append('\n'));
      assertThat(summary.getTotalFailureCount()).as("genuine transport failures:%n%s", why).isZero();
    }
    return summary;
  }

  @Test
  void aTransportThatDropsAMessageIsRejected() {
    assertThat(run(Dropping.class, DELIVERY_CASES).getTotalFailureCount()).isPositive();
    assertThat(run(Genuine.class, DELIVERY_CASES).getTotalFailureCount()).isZero();
  }

  @Test
  void aTransportThatIgnoresRequestNIsRejected() {
    TestExecutionSummary broken = run(IgnoringRequestN.class, FLOW_CONTROL_CASES);
    assertThat(broken.getTotalFailureCount()).isEqualTo(FLOW_CONTROL_CASES.size());
    assertThat(run(Genuine.class, FLOW_CONTROL_CASES).getTotalFailureCount()).isZero();
  }

  @Test
  void aTransportThatIgnoresCancelIsRejected() {
    assertThat(run(IgnoringCancel.class, CANCEL_CASES).getTotalFailureCount()).isEqualTo(CANCEL_CASES.size());
    assertThat(run(Genuine.class, CANCEL_CASES).getTotalFailureCount()).isZero();
  }

  @Test
  void aTransportThatReportsNoConnectionEventsIsRejected() {
    assertThat(run(ForgettingConnections.class, CONNECTION_CASES).getTotalFailureCount())
        .isEqualTo(CONNECTION_CASES.size());
    assertThat(run(Genuine.class, CONNECTION_CASES).getTotalFailureCount()).isZero();
  }

  @Test
  void aTransportThatLeaksABufferIsRejected() throws InterruptedException {
    assertThat(run(Leaking.class, LEAK_CASES).getTotalFailureCount()).isPositive();
    // Leaks the double left behind must not be blamed on the genuine transport.
    LeakDetection.collectAndReport();
    LeakDetection.drain();
    assertThat(run(Genuine.class, LEAK_CASES).getTotalFailureCount()).isZero();
  }
}
