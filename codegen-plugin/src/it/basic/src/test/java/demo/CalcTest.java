package demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Empty;
import demo.calc.CalcGrpc;
import demo.common.Num;
import demo.probe.ProbeGrpc;
import dev.tern.rpc.TernMethodOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.protobuf.ProtoMethodDescriptorSupplier;
import io.grpc.stub.BlockingClientCall;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class CalcTest {
  private Server server;
  private ManagedChannel channel;

  @BeforeEach
  void start() throws Exception {
    String name = InProcessServerBuilder.generateName();
    server = InProcessServerBuilder.forName(name).directExecutor()
        .addService(new CalcService())
        .addService(new ProbeGrpc.ProbeImplBase() {
          @Override
          public void check(Num request, StreamObserver<Num> out) {
            out.onNext(request);
            out.onCompleted();
          }
        })
        .build().start();
    channel = InProcessChannelBuilder.forName(name).directExecutor().build();
  }

  @AfterEach
  void stop() throws Exception {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }

  @Test
  void allFourCallKindsWork() throws Exception {
    CalcGrpc.CalcBlockingStub blocking = CalcGrpc.newBlockingStub(channel);
    assertEquals(49, blocking.square(num(7)).getValue());
    List<Long> counted = new ArrayList<>();
    for (Iterator<Num> it = blocking.countTo(num(3)); it.hasNext(); ) {
      counted.add(it.next().getValue());
    }
    assertEquals(List.of(1L, 2L, 3L), counted);
    assertEquals(Empty.getDefaultInstance(), blocking.reset(Empty.getDefaultInstance()));
    assertEquals(16, CalcGrpc.newFutureStub(channel).square(num(4)).get(5, TimeUnit.SECONDS)
        .getValue());

    BlockingClientCall<Num, Num> sum = CalcGrpc.newBlockingV2Stub(channel).sum();
    sum.write(num(5));
    sum.write(num(6));
    sum.halfClose();
    assertEquals(11, sum.read().getValue());

    List<Long> echoed = new ArrayList<>();
    CountDownLatch done = new CountDownLatch(1);
    StreamObserver<Num> requests = CalcGrpc.newStub(channel).echo(new StreamObserver<>() {
      @Override public void onNext(Num value) { echoed.add(value.getValue()); }
      @Override public void onError(Throwable t) { done.countDown(); }
      @Override public void onCompleted() { done.countDown(); }
    });
    requests.onNext(num(8));
    requests.onNext(num(9));
    requests.onCompleted();
    assertTrue(done.await(5, TimeUnit.SECONDS));
    assertEquals(List.of(8L, 9L), echoed);

    assertEquals(3, ProbeGrpc.newBlockingStub(channel).check(num(3)).getValue());
  }

  @Test
  void idempotencyLevelsSetTheDescriptorFlags() {
    MethodDescriptor<Num, Num> square = CalcGrpc.getSquareMethod();
    assertTrue(square.isSafe());
    // NO_SIDE_EFFECTS sets the safe flag only, as the stock generator does; grpc-java's
    // MethodDescriptor.Builder.setSafe(true) makes the descriptor idempotent too.
    assertTrue(square.isIdempotent());
    assertFalse(CalcGrpc.getCountToMethod().isSafe());
    assertTrue(CalcGrpc.getCountToMethod().isIdempotent());
    assertFalse(CalcGrpc.getSumMethod().isIdempotent());
    assertEquals(MethodDescriptor.MethodType.BIDI_STREAMING, CalcGrpc.getEchoMethod().getType());
  }

  @Test
  void ternPriorityOptionsAreRegistered() {
    assertNotNull(CalcGrpc.getServiceDescriptor());
    assertEquals("u=1", String.valueOf(TernMethodOptions.REGISTERED.get("demo.Calc/Square")));
    assertEquals("u=6, i", String.valueOf(TernMethodOptions.REGISTERED.get("demo.Calc/CountTo")));
    assertFalse(TernMethodOptions.REGISTERED.containsKey("demo.Calc/Sum"));
    assertNotNull(ProbeGrpc.getServiceDescriptor());
    assertEquals("u=7, i", String.valueOf(TernMethodOptions.REGISTERED.get("demo.probe.Probe/Check")));
  }

  @Test
  void schemaDescriptorsServeReflection() {
    Object schema = CalcGrpc.getSquareMethod().getSchemaDescriptor();
    assertEquals("Square",
        ((ProtoMethodDescriptorSupplier) schema).getMethodDescriptor().getName());
    assertEquals("demo/calc.proto",
        ((ProtoMethodDescriptorSupplier) schema).getFileDescriptor().getName());
  }

  static Num num(long v) {
    return Num.newBuilder().setValue(v).build();
  }

  static final class CalcService extends CalcGrpc.CalcImplBase {
    @Override
    public void square(Num request, StreamObserver<Num> out) {
      out.onNext(num(request.getValue() * request.getValue()));
      out.onCompleted();
    }

    @Override
    public void countTo(Num request, StreamObserver<Num> out) {
      for (long i = 1; i <= request.getValue(); i++) {
        out.onNext(num(i));
      }
      out.onCompleted();
    }

    @Override
    public StreamObserver<Num> sum(StreamObserver<Num> out) {
      return new StreamObserver<>() {
        long total;
        @Override public void onNext(Num value) { total += value.getValue(); }
        @Override public void onError(Throwable t) {}
        @Override public void onCompleted() { out.onNext(num(total)); out.onCompleted(); }
      };
    }

    @Override
    public StreamObserver<Num> echo(StreamObserver<Num> out) {
      return new StreamObserver<>() {
        @Override public void onNext(Num value) { out.onNext(value); }
        @Override public void onError(Throwable t) {}
        @Override public void onCompleted() { out.onCompleted(); }
      };
    }

    @Override
    public void reset(Empty request, StreamObserver<Empty> out) {
      out.onNext(Empty.getDefaultInstance());
      out.onCompleted();
    }
  }
}
