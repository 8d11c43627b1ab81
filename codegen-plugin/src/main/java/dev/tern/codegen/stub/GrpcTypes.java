package dev.tern.codegen.stub;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.ParameterizedTypeName;
import com.palantir.javapoet.TypeName;
import java.util.Set;

/** The grpc-java and protobuf types generated code refers to (all public, stable API). */
final class GrpcTypes {
  static final ClassName CHANNEL = ClassName.get("io.grpc", "Channel");
  static final ClassName CALL_OPTIONS = ClassName.get("io.grpc", "CallOptions");
  static final ClassName METHOD_DESCRIPTOR = ClassName.get("io.grpc", "MethodDescriptor");
  static final ClassName METHOD_TYPE = METHOD_DESCRIPTOR.nestedClass("MethodType");
  static final ClassName SERVICE_DESCRIPTOR = ClassName.get("io.grpc", "ServiceDescriptor");
  static final ClassName SERVER_SERVICE_DEFINITION =
      ClassName.get("io.grpc", "ServerServiceDefinition");
  static final ClassName BINDABLE_SERVICE = ClassName.get("io.grpc", "BindableService");
  static final ClassName STATUS_EXCEPTION = ClassName.get("io.grpc", "StatusException");
  static final ClassName STREAM_OBSERVER = ClassName.get("io.grpc.stub", "StreamObserver");
  static final ClassName CLIENT_CALLS = ClassName.get("io.grpc.stub", "ClientCalls");
  static final ClassName SERVER_CALLS = ClassName.get("io.grpc.stub", "ServerCalls");
  static final ClassName ABSTRACT_STUB = ClassName.get("io.grpc.stub", "AbstractStub");
  static final ClassName STUB_FACTORY = ABSTRACT_STUB.nestedClass("StubFactory");
  static final ClassName ABSTRACT_ASYNC_STUB = ClassName.get("io.grpc.stub", "AbstractAsyncStub");
  static final ClassName ABSTRACT_BLOCKING_STUB =
      ClassName.get("io.grpc.stub", "AbstractBlockingStub");
  static final ClassName ABSTRACT_FUTURE_STUB =
      ClassName.get("io.grpc.stub", "AbstractFutureStub");
  static final ClassName BLOCKING_CLIENT_CALL = ClassName.get("io.grpc.stub", "BlockingClientCall");
  static final ClassName GRPC_GENERATED =
      ClassName.get("io.grpc.stub.annotations", "GrpcGenerated");
  static final ClassName RPC_METHOD = ClassName.get("io.grpc.stub.annotations", "RpcMethod");
  static final ClassName PROTO_UTILS = ClassName.get("io.grpc.protobuf", "ProtoUtils");
  static final ClassName PROTO_LITE_UTILS = ClassName.get("io.grpc.protobuf.lite", "ProtoLiteUtils");
  static final ClassName PROTO_FILE_SUPPLIER =
      ClassName.get("io.grpc.protobuf", "ProtoFileDescriptorSupplier");
  static final ClassName PROTO_SERVICE_SUPPLIER =
      ClassName.get("io.grpc.protobuf", "ProtoServiceDescriptorSupplier");
  static final ClassName PROTO_METHOD_SUPPLIER =
      ClassName.get("io.grpc.protobuf", "ProtoMethodDescriptorSupplier");
  static final ClassName FILE_DESCRIPTOR =
      ClassName.get("com.google.protobuf", "Descriptors", "FileDescriptor");
  static final ClassName PROTO_SERVICE_DESCRIPTOR =
      ClassName.get("com.google.protobuf", "Descriptors", "ServiceDescriptor");
  static final ClassName PROTO_METHOD_DESCRIPTOR =
      ClassName.get("com.google.protobuf", "Descriptors", "MethodDescriptor");
  static final ClassName LISTENABLE_FUTURE =
      ClassName.get("com.google.common.util.concurrent", "ListenableFuture");
  static final ClassName ITERATOR = ClassName.get("java.util", "Iterator");
  static final ClassName STRING = ClassName.get("java.lang", "String");
  static final ClassName TERN_METHOD_OPTIONS = ClassName.get("dev.tern.rpc", "TernMethodOptions");
  static final ClassName TERN_PRIORITY = ClassName.get("dev.tern.rpc", "Priority");

  /** Simple names generated code uses unqualified, including java.lang's. */
  static final Set<String> SIMPLE_NAMES = Set.of(
      "Channel", "CallOptions", "MethodDescriptor", "ServiceDescriptor", "ServerServiceDefinition",
      "BindableService", "StatusException", "StreamObserver", "ClientCalls", "ServerCalls",
      "AbstractStub", "AbstractAsyncStub", "AbstractBlockingStub", "AbstractFutureStub",
      "BlockingClientCall", "GrpcGenerated", "RpcMethod", "ProtoUtils", "ProtoLiteUtils",
      "ProtoFileDescriptorSupplier", "ProtoServiceDescriptorSupplier",
      "ProtoMethodDescriptorSupplier", "Descriptors", "ListenableFuture", "Iterator",
      "TernMethodOptions", "Priority", "String", "Object", "Override", "Deprecated",
      "SuppressWarnings", "AssertionError", "AsyncService", "MethodHandlers");

  private GrpcTypes() {}

  /** {@code MethodDescriptor<Req, Resp>} of a method. */
  static TypeName methodDescriptor(MethodModel m) {
    return ParameterizedTypeName.get(METHOD_DESCRIPTOR, m.request(), m.response());
  }

  /** {@code StreamObserver<T>}. */
  static TypeName observer(TypeName t) {
    return ParameterizedTypeName.get(STREAM_OBSERVER, t);
  }
}
