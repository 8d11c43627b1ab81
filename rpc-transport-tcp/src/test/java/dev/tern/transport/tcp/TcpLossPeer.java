package dev.tern.transport.tcp;

import dev.tern.conformance.MetricsService;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import dev.tern.rpc.metrics.TernMetrics;
import dev.tern.rpc.metrics.TransportMetrics;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.stub.ClientCalls;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * {@link TcpMetricsTest}'s process in a network namespace whose loopback drops packets: a Tern
 * server and channel on {@code tcp}, each with its metrics, {@code <downloads>} downloads of {@code
 * <bytes>} bytes each, then the channel closes and, once the server has seen its connection end,
 * prints {@code COUNTS <server retransmissions> <client retransmissions> <server streams reset>
 * <server refusals> <client refusals>} (refusals of every reason) and exits.
 */
public final class TcpLossPeer {
  private TcpLossPeer() {}

  private static long sum(TransportMetrics m) {
    return m.refusals().values().stream().mapToLong(Long::longValue).sum();
  }

  /**
   * Runs the downloads.
   *
   * @param args {@code <downloads> <bytes>}
   */
  public static void main(String[] args) throws Exception {
    int downloads = Integer.parseInt(args[0]);
    int bytes = Integer.parseInt(args[1]);
    TernMetrics metrics = TernMetrics.create();
    Server server = TernServerBuilder.create().listen("tcp", new InetSocketAddress("127.0.0.1", 0))
        .addService(new MetricsService().definition()).metrics(metrics, "server").build().start();
    ManagedChannel channel = TernChannelBuilder.forAddress("127.0.0.1", server.getPort()).transports("tcp")
        .usePlaintext().metrics(metrics, "client").build();
    try {
      for (int i = 0; i < downloads; i++) {
        String answer = ClientCalls.blockingUnaryCall(channel, MetricsService.DOWNLOAD,
            CallOptions.DEFAULT.withDeadlineAfter(60, TimeUnit.SECONDS), Integer.toString(bytes));
        if (answer.length() != bytes) {
          throw new AssertionError("download " + i + ": " + answer.length() + " bytes, not " + bytes);
        }
      }
      channel.shutdown();
      if (!channel.awaitTermination(20, TimeUnit.SECONDS)) {
        throw new AssertionError("the channel did not terminate");
      }
      TransportMetrics s = metrics.transport(TernMetrics.Side.SERVER, "server", "tcp");
      TransportMetrics c = metrics.transport(TernMetrics.Side.CLIENT, "client", "tcp");
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (s.connections() > 0 || s.connectionsOpened() == 0) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("the server's connection did not end: " + s);
        }
        Thread.sleep(10);
      }
      System.out.println("COUNTS " + s.retransmissions() + " " + c.retransmissions() + " " + s.streamsReset() + " "
          + sum(s) + " " + sum(c));
    } finally {
      channel.shutdownNow();
      server.shutdownNow();
      server.awaitTermination(10, TimeUnit.SECONDS);
    }
  }
}
