package dev.tern.bench.soak;

import dev.tern.bench.service.ByteArrayMarshaller;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;

/**
 * The soak run's bidirectional method: a chat that echoes every message it receives and ends when
 * the client half-closes. The client keeps one open per transport and checks every message came
 * back.
 */
final class SoakChat {
  /** Service name on the wire. */
  static final String SERVICE = "tern.soak.Chat";

  /** Bidirectional streaming: each request is echoed as one response. */
  static final MethodDescriptor<byte[], byte[]> CHAT = MethodDescriptor.<byte[], byte[]>newBuilder()
      .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
      .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, "Chat"))
      .setRequestMarshaller(ByteArrayMarshaller.INSTANCE)
      .setResponseMarshaller(ByteArrayMarshaller.INSTANCE)
      .build();

  private SoakChat() {}

  /** The service definition: echo each message, complete on the client's half-close. */
  static ServerServiceDefinition definition() {
    return ServerServiceDefinition.builder(SERVICE)
        .addMethod(CHAT, ServerCalls.asyncBidiStreamingCall(SoakChat::chat))
        .build();
  }

  private static StreamObserver<byte[]> chat(StreamObserver<byte[]> out) {
    return new StreamObserver<>() {
      @Override
      public void onNext(byte[] message) {
        out.onNext(message);
      }

      @Override
      public void onError(Throwable t) {
        // the client cancelled or the connection went away: nothing to answer
      }

      @Override
      public void onCompleted() {
        out.onCompleted();
      }
    };
  }
}
