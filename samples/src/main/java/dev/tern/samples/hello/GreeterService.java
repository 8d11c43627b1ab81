package dev.tern.samples.hello;

import dev.tern.samples.hello.proto.GreeterGrpc;
import dev.tern.samples.hello.proto.HelloReply;
import dev.tern.samples.hello.proto.HelloRequest;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;

/** The greeter: plain grpc-java service code, served unchanged by Tern on every transport. */
public final class GreeterService extends GreeterGrpc.GreeterImplBase {
  /** Longest name accepted, in characters. */
  public static final int MAX_NAME_LENGTH = 256;
  /** Most greetings one stream may ask for. */
  public static final int MAX_TIMES = 1000;

  @Override
  public void sayHello(HelloRequest request, StreamObserver<HelloReply> responseObserver) {
    if (!validName(request, responseObserver)) {
      return;
    }
    responseObserver.onNext(HelloReply.newBuilder().setMessage("Hello, " + request.getName() + "!").build());
    responseObserver.onCompleted();
  }

  @Override
  public void sayHelloStream(HelloRequest request, StreamObserver<HelloReply> responseObserver) {
    if (!validName(request, responseObserver)) {
      return;
    }
    int times = request.getTimes();
    if (times < 1 || times > MAX_TIMES) {
      responseObserver.onError(Status.INVALID_ARGUMENT
          .withDescription("times must be in 1.." + MAX_TIMES + ", was " + times).asRuntimeException());
      return;
    }
    for (int i = 1; i <= times; i++) {
      responseObserver.onNext(HelloReply.newBuilder()
          .setMessage("Hello #" + i + ", " + request.getName() + "!").build());
    }
    responseObserver.onCompleted();
  }

  private static boolean validName(HelloRequest request, StreamObserver<HelloReply> responseObserver) {
    String name = request.getName();
    if (name.isEmpty() || name.length() > MAX_NAME_LENGTH) {
      responseObserver.onError(Status.INVALID_ARGUMENT
          .withDescription("name must have 1.." + MAX_NAME_LENGTH + " characters, had " + name.length())
          .asRuntimeException());
      return false;
    }
    return true;
  }
}
