package dev.tern.samples.mobile;

import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.resilience.ResilienceListener;
import dev.tern.rpc.resilience.TernResilience;
import dev.tern.samples.mobile.feed.FeedGrpc;
import dev.tern.samples.mobile.feed.PageRequest;
import dev.tern.transport.udp.rpc.UdpTransportOptions;
import io.grpc.ManagedChannel;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The feed's API call ({@code Latest}, a page of 20) over {@code udp}, with and without a hedging
 * policy (rpc-resilience), alternating call by call on two channels so that both see the same
 * link at the same time; prints each variant's latency percentiles.
 *
 * <p>Usage: {@code HedgingProbe HOST PORT UDP-PIN CALLS HEDGING-DELAY-MS}.
 */
public final class HedgingProbe {
  private HedgingProbe() {}

  /**
   * Runs the probe.
   *
   * @param args the host, the port, the udp pin (base64), calls per variant, the hedging delay
   * @throws Exception if a channel cannot be shut down
   */
  public static void main(String[] args) throws Exception {
    String host = args[0];
    int port = Integer.parseInt(args[1]);
    byte[] pin = Base64.getDecoder().decode(args[2]);
    int calls = Integer.parseInt(args[3]);
    long delayMillis = Long.parseLong(args[4]);
    AtomicInteger hedges = new AtomicInteger();
    ManagedChannel plain = channel(host, port, pin).build();
    ManagedChannel hedged = channel(host, port, pin)
        .defaultServiceConfig(Map.of("methodConfig", List.of(Map.of(
            "name", List.of(Map.of("service", FeedGrpc.SERVICE_NAME, "method", "Latest")),
            "hedgingPolicy", Map.of("maxAttempts", 3, "hedgingDelay", (delayMillis / 1000.0) + "s",
                "nonFatalStatusCodes", List.of("UNAVAILABLE"))))))
        .callPolicyProvider(TernResilience.newBuilder().listener(new ResilienceListener() {
          @Override
          public void hedgeSent(String method, int attempt) {
            hedges.incrementAndGet();
          }
        }).build()).build();
    try {
      for (int i = 0; i < 5; i++) { // connections up, classes loaded
        call(plain);
        call(hedged);
      }
      hedges.set(0);
      List<Long> plainMillis = new ArrayList<>();
      List<Long> hedgedMillis = new ArrayList<>();
      for (int i = 0; i < calls; i++) {
        plainMillis.add(call(plain));
        hedgedMillis.add(call(hedged));
      }
      System.out.println(line("no hedging", plainMillis));
      System.out.println(line("hedging " + delayMillis + " ms", hedgedMillis) + ", copies sent " + hedges.get());
    } finally {
      plain.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      hedged.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  private static TernChannelBuilder channel(String host, int port, byte[] pin) {
    return TernChannelBuilder.forAddress(host, port).transports("udp").usePlaintext()
        .transportOption(UdpTransportOptions.PINNED_SERVER_KEY, pin);
  }

  private static long call(ManagedChannel c) {
    long start = System.nanoTime();
    FeedGrpc.newBlockingStub(c).withDeadlineAfter(30, TimeUnit.SECONDS)
        .latest(PageRequest.newBuilder().setSize(20).build());
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
  }

  /** "NAME: n calls, p50 X ms, p90 Y ms, p99 Z ms, max W ms" (nearest rank). */
  static String line(String name, List<Long> millis) {
    List<Long> s = new ArrayList<>(millis);
    Collections.sort(s);
    return String.format(Locale.ROOT, "%s: %d calls, p50 %d ms, p90 %d ms, p99 %d ms, max %d ms", name, s.size(),
        rank(s, 0.50), rank(s, 0.90), rank(s, 0.99), s.get(s.size() - 1));
  }

  private static long rank(List<Long> sorted, double q) {
    return sorted.get(Math.max(0, (int) Math.ceil(q * sorted.size()) - 1));
  }
}
