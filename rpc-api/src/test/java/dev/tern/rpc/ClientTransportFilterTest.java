package dev.tern.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.inprocess.InProcessAddress;
import io.grpc.Attributes;
import io.grpc.CallOptions;
import io.grpc.ClientTransportFilter;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.stub.ClientCalls;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code TernChannelBuilder.addTransportFilter}: each filter hears each connection the channel's
 * backends make once when it is ready (with its addresses) and once when it has terminated, as
 * grpc-java's channel tells its filters.
 */
@Timeout(30)
class ClientTransportFilterTest {
  private final List<Server> servers = new ArrayList<>();
  private ManagedChannel channel;

  /** Records what it hears. */
  private static final class Recording extends ClientTransportFilter {
    final List<Attributes> ready = new ArrayList<>();
    final CountDownLatch terminated;

    Recording(int connections) {
      terminated = new CountDownLatch(connections);
    }

    @Override
    public synchronized Attributes transportReady(Attributes attrs) {
      ready.add(attrs);
      return attrs;
    }

    @Override
    public void transportTerminated(Attributes attrs) {
      terminated.countDown();
    }

    synchronized List<Attributes> ready() {
      return new ArrayList<>(ready);
    }
  }

  @Test
  void aFilterHearsTheConnectionReadyOnceAndTerminatedOnce() throws Exception {
    InProcessAddress address = new InProcessAddress("filters-" + UUID.randomUUID());
    servers.add(TernServerBuilder.create().listen("inprocess", address).addService(TestMethods.service()).build().start());
    Recording filter = new Recording(1);
    channel = TernChannelBuilder.forAddress(address).transports("inprocess").usePlaintext().addTransportFilter(filter)
        .build();
    for (int i = 0; i < 3; i++) {
      assertThat(ClientCalls.blockingUnaryCall(channel, TestMethods.UNARY, CallOptions.DEFAULT, "x")).isEqualTo("x");
    }
    assertThat(filter.ready()).as("ready once for one connection, whatever the number of calls").hasSize(1);
    assertThat(filter.ready().get(0).get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR)).isEqualTo(address);
    assertThat(filter.terminated.getCount()).as("not terminated while the channel is up").isEqualTo(1);
    channel.shutdown();
    assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    assertThat(filter.terminated.await(10, TimeUnit.SECONDS)).as("terminated once the channel closed it").isTrue();
    assertThat(filter.ready()).hasSize(1);
  }

  @AfterEach
  void stop() throws InterruptedException {
    if (channel != null) {
      channel.shutdownNow();
      assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    for (Server s : servers) {
      s.shutdownNow();
      assertThat(s.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }
}
