package dev.tern.transport.quic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernServerBuilder;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.netty.buffer.Unpooled;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Datagrams RFC 9000 tells a server to discard, recognised from their first bytes: dropped before
 * the QUIC codec and counted, while a legitimate client's call goes through.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MalformedDatagramsTest {
  private static final MethodDescriptor<String, String> ECHO = EndToEndZeroRttTest.method("test.Junk/Echo", false);

  /** A version 1 long header: first byte, version, DCID length and DCID, padded to {@code size}. */
  private static byte[] longHeader(int first, int dcidLength, int size) {
    ByteBuffer b = ByteBuffer.allocate(size);
    b.put((byte) first).putInt(1).put((byte) dcidLength);
    for (int i = 0; i < Math.min(dcidLength, size - 6); i++) {
      b.put((byte) i);
    }
    return b.array();
  }

  @Test
  void recognisesWhatRfc9000SaysToDiscard() {
    // §14.1: an Initial in a datagram under 1200 bytes.
    assertThat(MalformedDatagrams.malformed(Unpooled.wrappedBuffer(longHeader(0xc0, 8, 1199)))).isTrue();
    assertThat(MalformedDatagrams.malformed(Unpooled.wrappedBuffer(longHeader(0xc0, 8, 1200)))).isFalse();
    // §17.2: a v1 connection ID of 21 bytes.
    assertThat(MalformedDatagrams.malformed(Unpooled.wrappedBuffer(longHeader(0xe0, 21, 1300)))).isTrue();
    assertThat(MalformedDatagrams.malformed(Unpooled.wrappedBuffer(longHeader(0xe0, 20, 1300)))).isFalse();
    // A Handshake packet (type 2) may be small; a short header and other versions are quiche's to judge.
    assertThat(MalformedDatagrams.malformed(Unpooled.wrappedBuffer(longHeader(0xe0, 8, 100)))).isFalse();
    assertThat(MalformedDatagrams.malformed(Unpooled.wrappedBuffer(new byte[] {0x40, 1, 2, 3}))).isFalse();
    assertThat(MalformedDatagrams.malformed(Unpooled.wrappedBuffer(new byte[] {(byte) 0xc0, 0, 0, 0, 2, 8, 0})))
        .isFalse();
    assertThat(MalformedDatagrams.malformed(Unpooled.wrappedBuffer(new byte[] {(byte) 0xc0, 0, 0}))).isTrue();
    assertThat(MalformedDatagrams.malformed(Unpooled.EMPTY_BUFFER)).isTrue();
  }

  @Test
  void aThousandDiscardableDatagramsAreDroppedAndCountedAndALegitimateCallGoesThrough() throws Exception {
    Server server = TernServerBuilder.create().listen(QuicTransportProvider.NAME, new InetSocketAddress("127.0.0.1", 0))
        .tls(TestCertificates.server())
        .addService(ServerServiceDefinition.builder("test.Junk")
            .addMethod(ECHO, ServerCalls.asyncUnaryCall((request, response) -> {
              response.onNext(request);
              response.onCompleted();
            }))
            .build())
        .build().start();
    InetSocketAddress address = (InetSocketAddress) server.getListenSockets().get(0);
    ManagedChannel channel = TernChannelBuilder.forAddress(address).addTransportProvider(new QuicTransportProvider())
        .transports("quic").overrideAuthority("localhost:" + address.getPort())
        .tls(TestCertificates.client()).build();
    long before = MalformedDatagrams.DROPPED.count();
    try (DatagramChannel junk = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
      for (int i = 0; i < 500; i++) {
        junk.send(ByteBuffer.wrap(longHeader(0xc0, 8, 300)), address);
        junk.send(ByteBuffer.wrap(longHeader(0xe0, 21, 300)), address);
        if (i % 50 == 49) {
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
          while (MalformedDatagrams.DROPPED.count() - before < 2L * (i + 1) && System.nanoTime() < deadline) {
            Thread.sleep(1);
          }
        }
      }
      assertThat(ClientCalls.blockingUnaryCall(channel, ECHO, CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS),
          "legitimate")).isEqualTo("legitimate");
      assertThat(MalformedDatagrams.DROPPED.count() - before).as("datagrams dropped and counted").isEqualTo(1000);
    } finally {
      channel.shutdownNow();
      server.shutdownNow();
      assertThat(server.awaitTermination(20, TimeUnit.SECONDS)).isTrue();
    }
  }
}
