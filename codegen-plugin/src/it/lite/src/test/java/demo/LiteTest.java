package demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import demo.lite.Ping;
import demo.lite.PingerGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Lite messages and lite stubs (no schema descriptors) on protobuf-javalite alone. */
@Timeout(30)
class LiteTest {
  @Test
  void liteStubsCallLiteServer() throws Exception {
    String name = InProcessServerBuilder.generateName();
    Server server = InProcessServerBuilder.forName(name).directExecutor()
        .addService(new PingerGrpc.PingerImplBase() {
          @Override
          public void send(Ping request, StreamObserver<Ping> out) {
            out.onNext(Ping.newBuilder().setSeq(request.getSeq() + 1).build());
            out.onCompleted();
          }
        }).build().start();
    ManagedChannel channel = InProcessChannelBuilder.forName(name).directExecutor().build();
    try {
      assertEquals(8, PingerGrpc.newBlockingStub(channel)
          .send(Ping.newBuilder().setSeq(7).build()).getSeq());
      assertNull(PingerGrpc.getSendMethod().getSchemaDescriptor());
      assertNull(PingerGrpc.getServiceDescriptor().getSchemaDescriptor());
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
