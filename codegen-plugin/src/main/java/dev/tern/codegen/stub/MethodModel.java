package dev.tern.codegen.stub;

import com.google.protobuf.DescriptorProtos.MethodDescriptorProto;
import com.google.protobuf.DescriptorProtos.MethodOptions.IdempotencyLevel;
import com.palantir.javapoet.ClassName;

/**
 * One rpc of a service, with the names the generated code uses for it.
 *
 * @param protoName the method name as written in the proto ({@code SayHello})
 * @param javaName the stub and service method name ({@code sayHello})
 * @param getterName the descriptor getter ({@code getSayHelloMethod})
 * @param idField the method id constant ({@code METHODID_SAY_HELLO})
 * @param request the request message class
 * @param response the response message class
 * @param clientStreaming whether the client sends a stream
 * @param serverStreaming whether the server sends a stream
 * @param deprecated whether the proto marks the method deprecated
 * @param idempotency the proto's {@code idempotency_level}
 * @param priority Tern's default priority, or null when the method declares none
 * @param comment the proto's leading comment, or empty
 */
record MethodModel(
    String protoName,
    String javaName,
    String getterName,
    String idField,
    ClassName request,
    ClassName response,
    boolean clientStreaming,
    boolean serverStreaming,
    boolean deprecated,
    IdempotencyLevel idempotency,
    TernPriorityOption priority,
    String comment) {

  /** Builds the model of one method from its descriptor. */
  static MethodModel of(MethodDescriptorProto method, ProtoTypeNames types, String comment) {
    String name = method.getName();
    return new MethodModel(
        name,
        JavaNames.mixedLower(name),
        JavaNames.methodGetter(name),
        JavaNames.methodIdField(name),
        types.message(method.getInputType()),
        types.message(method.getOutputType()),
        method.getClientStreaming(),
        method.getServerStreaming(),
        method.getOptions().getDeprecated(),
        method.getOptions().getIdempotencyLevel(),
        TernPriorityOption.read(method.getOptions()),
        comment);
  }

  /** The {@code io.grpc.MethodDescriptor.MethodType} constant name. */
  String methodType() {
    if (clientStreaming) {
      return serverStreaming ? "BIDI_STREAMING" : "CLIENT_STREAMING";
    }
    return serverStreaming ? "SERVER_STREAMING" : "UNARY";
  }

  /** Unary and server-streaming methods take one request; the others take a stream. */
  boolean takesSingleRequest() {
    return !clientStreaming;
  }
}
