package com.example.greeter;

import com.example.greeter.proto.GreeterGrpc;
import com.example.greeter.proto.HelloReply;
import com.example.greeter.proto.HelloRequest;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;

/** The greeter: answers "Hello, NAME!" and refuses an empty name. */
public final class GreeterService extends GreeterGrpc.GreeterImplBase {
  @Override
  public void sayHello(HelloRequest request, StreamObserver<HelloReply> responses) {
    if (request.getName().isEmpty()) {
      responses.onError(Status.INVALID_ARGUMENT.withDescription("name is empty").asRuntimeException());
      return;
    }
    responses.onNext(HelloReply.newBuilder().setMessage("Hello, " + request.getName() + "!").build());
    responses.onCompleted();
  }
}
