package app;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.example.app.WalletGrpc;
import com.example.shared.MoneyProtos.Money;
import com.google.protobuf.StringValue;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class WalletTest {
  @Test
  void callsWithMessagesFromAnotherModule() throws Exception {
    String name = InProcessServerBuilder.generateName();
    Server server = InProcessServerBuilder.forName(name).directExecutor()
        .addService(new WalletGrpc.WalletImplBase() {
          @Override
          public void balance(StringValue request, StreamObserver<Money> out) {
            out.onNext(Money.newBuilder().setCurrency(request.getValue()).setUnits(42).build());
            out.onCompleted();
          }
        }).build().start();
    ManagedChannel channel = InProcessChannelBuilder.forName(name).directExecutor().build();
    try {
      Money m = WalletGrpc.newBlockingStub(channel).balance(StringValue.of("EUR"));
      assertEquals("EUR", m.getCurrency());
      assertEquals(42, m.getUnits());
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
