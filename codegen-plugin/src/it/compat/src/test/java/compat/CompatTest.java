package compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.BindableService;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Stock-generated clients against Tern-generated servers and the reverse, all call kinds. */
@Timeout(30)
class CompatTest {
  @Test
  void stockClientCallsTernServer() throws Exception {
    withServer(new TernRelay(), channel -> {
      com.example.compat.stock.RelayGrpc.RelayBlockingStub blocking =
          com.example.compat.stock.RelayGrpc.newBlockingStub(channel);
      assertEquals("unary:a", blocking.unary(stockMsg("a", 0)).getText());
      List<String> got = new ArrayList<>();
      for (Iterator<com.example.compat.stock.RelayStock.Msg> it =
          blocking.serverStream(stockMsg("s", 3)); it.hasNext(); ) {
        got.add(it.next().getText());
      }
      assertEquals(List.of("s0", "s1", "s2"), got);
      com.example.compat.stock.RelayGrpc.RelayStub async =
          com.example.compat.stock.RelayGrpc.newStub(channel);
      Collector<com.example.compat.stock.RelayStock.Msg> sum = new Collector<>();
      StreamObserver<com.example.compat.stock.RelayStock.Msg> up = async.clientStream(sum);
      up.onNext(stockMsg("x", 2));
      up.onNext(stockMsg("y", 5));
      up.onCompleted();
      assertEquals(7, sum.await().get(0).getN());
      Collector<com.example.compat.stock.RelayStock.Msg> echoes = new Collector<>();
      StreamObserver<com.example.compat.stock.RelayStock.Msg> bidi = async.bidi(echoes);
      bidi.onNext(stockMsg("p", 1));
      bidi.onNext(stockMsg("q", 2));
      bidi.onCompleted();
      assertEquals(List.of("echo:p", "echo:q"),
          echoes.await().stream().map(m -> m.getText()).toList());
    });
  }

  @Test
  void ternClientCallsStockServer() throws Exception {
    withServer(new StockRelay(), channel -> {
      com.example.compat.tern.RelayGrpc.RelayBlockingStub blocking =
          com.example.compat.tern.RelayGrpc.newBlockingStub(channel);
      assertEquals("unary:a", blocking.unary(ternMsg("a", 0)).getText());
      List<String> got = new ArrayList<>();
      for (Iterator<com.example.compat.tern.RelayOuterClass.Msg> it =
          blocking.serverStream(ternMsg("s", 2)); it.hasNext(); ) {
        got.add(it.next().getText());
      }
      assertEquals(List.of("s0", "s1"), got);
      com.example.compat.tern.RelayGrpc.RelayStub async =
          com.example.compat.tern.RelayGrpc.newStub(channel);
      Collector<com.example.compat.tern.RelayOuterClass.Msg> sum = new Collector<>();
      StreamObserver<com.example.compat.tern.RelayOuterClass.Msg> up = async.clientStream(sum);
      up.onNext(ternMsg("x", 4));
      up.onNext(ternMsg("y", 6));
      up.onCompleted();
      assertEquals(10, sum.await().get(0).getN());
      Collector<com.example.compat.tern.RelayOuterClass.Msg> echoes = new Collector<>();
      StreamObserver<com.example.compat.tern.RelayOuterClass.Msg> bidi = async.bidi(echoes);
      bidi.onNext(ternMsg("p", 1));
      bidi.onCompleted();
      assertEquals(List.of("echo:p"), echoes.await().stream().map(m -> m.getText()).toList());
      assertEquals("unary:f", com.example.compat.tern.RelayGrpc.newFutureStub(channel)
          .unary(ternMsg("f", 0)).get(5, TimeUnit.SECONDS).getText());
    });
  }

  interface ChannelTest {
    void run(ManagedChannel channel) throws Exception;
  }

  static void withServer(BindableService service, ChannelTest test) throws Exception {
    String name = InProcessServerBuilder.generateName();
    Server server = InProcessServerBuilder.forName(name).addService(service).build().start();
    ManagedChannel channel = InProcessChannelBuilder.forName(name).build();
    try {
      test.run(channel);
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  static final class Collector<T> implements StreamObserver<T> {
    private final List<T> values = new ArrayList<>();
    private final CountDownLatch done = new CountDownLatch(1);
    private volatile Throwable error;

    @Override public synchronized void onNext(T value) { values.add(value); }
    @Override public void onError(Throwable t) { error = t; done.countDown(); }
    @Override public void onCompleted() { done.countDown(); }

    List<T> await() throws InterruptedException {
      assertTrue(done.await(5, TimeUnit.SECONDS), "call did not complete");
      if (error != null) {
        throw new AssertionError("call failed", error);
      }
      synchronized (this) {
        return new ArrayList<>(values);
      }
    }
  }

  static com.example.compat.stock.RelayStock.Msg stockMsg(String text, int n) {
    return com.example.compat.stock.RelayStock.Msg.newBuilder().setText(text).setN(n).build();
  }

  static com.example.compat.tern.RelayOuterClass.Msg ternMsg(String text, int n) {
    return com.example.compat.tern.RelayOuterClass.Msg.newBuilder().setText(text).setN(n).build();
  }
}
