package compat;

import com.example.compat.stock.RelayGrpc;
import com.example.compat.stock.RelayStock.Msg;
import io.grpc.stub.StreamObserver;

/** The test service on the stock generator's base class. */
final class StockRelay extends RelayGrpc.RelayImplBase {
  @Override
  public void unary(Msg request, StreamObserver<Msg> out) {
    out.onNext(Msg.newBuilder().setText("unary:" + request.getText()).build());
    out.onCompleted();
  }

  @Override
  public void serverStream(Msg request, StreamObserver<Msg> out) {
    for (int i = 0; i < request.getN(); i++) {
      out.onNext(Msg.newBuilder().setText(request.getText() + i).build());
    }
    out.onCompleted();
  }

  @Override
  public StreamObserver<Msg> clientStream(StreamObserver<Msg> out) {
    return new StreamObserver<>() {
      private int total;

      @Override public void onNext(Msg value) { total += value.getN(); }
      @Override public void onError(Throwable t) {}
      @Override public void onCompleted() {
        out.onNext(Msg.newBuilder().setN(total).build());
        out.onCompleted();
      }
    };
  }

  @Override
  public StreamObserver<Msg> bidi(StreamObserver<Msg> out) {
    return new StreamObserver<>() {
      @Override public void onNext(Msg value) {
        out.onNext(Msg.newBuilder().setText("echo:" + value.getText()).build());
      }
      @Override public void onError(Throwable t) {}
      @Override public void onCompleted() { out.onCompleted(); }
    };
  }
}
