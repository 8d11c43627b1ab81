package dev.tern.codegen.stub;

import static dev.tern.codegen.stub.GrpcTypes.ABSTRACT_ASYNC_STUB;
import static dev.tern.codegen.stub.GrpcTypes.ABSTRACT_BLOCKING_STUB;
import static dev.tern.codegen.stub.GrpcTypes.ABSTRACT_FUTURE_STUB;
import static dev.tern.codegen.stub.GrpcTypes.BLOCKING_CLIENT_CALL;
import static dev.tern.codegen.stub.GrpcTypes.CALL_OPTIONS;
import static dev.tern.codegen.stub.GrpcTypes.CHANNEL;
import static dev.tern.codegen.stub.GrpcTypes.CLIENT_CALLS;
import static dev.tern.codegen.stub.GrpcTypes.ITERATOR;
import static dev.tern.codegen.stub.GrpcTypes.LISTENABLE_FUTURE;
import static dev.tern.codegen.stub.GrpcTypes.STATUS_EXCEPTION;
import static dev.tern.codegen.stub.GrpcTypes.STUB_FACTORY;
import static dev.tern.codegen.stub.GrpcTypes.observer;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.MethodSpec;
import com.palantir.javapoet.ParameterizedTypeName;
import com.palantir.javapoet.TypeName;
import com.palantir.javapoet.TypeSpec;
import com.palantir.javapoet.WildcardTypeName;
import java.util.Locale;
import javax.lang.model.element.Modifier;

/**
 * The client half of a {@code XxxGrpc} class: the {@code newStub} family of factories and the
 * async, blocking (v2 and classic) and future stub classes.
 */
final class ClientStubSpecs {
  private enum Kind {
    ASYNC("Stub", "newStub", ABSTRACT_ASYNC_STUB,
        "Creates a new async stub that supports all call types for the service.\n"),
    BLOCKING_V2("BlockingV2Stub", "newBlockingV2Stub", ABSTRACT_BLOCKING_STUB,
        "Creates a new blocking-style stub that supports all types of calls on the service.\n"),
    BLOCKING("BlockingStub", "newBlockingStub", ABSTRACT_BLOCKING_STUB,
        "Creates a new blocking-style stub that supports unary and streaming output calls.\n"),
    FUTURE("FutureStub", "newFutureStub", ABSTRACT_FUTURE_STUB,
        "Creates a new ListenableFuture-style stub that supports unary calls on the service.\n");

    final String suffix;
    final String factory;
    final ClassName base;
    final String doc;

    Kind(String suffix, String factory, ClassName base, String doc) {
      this.suffix = suffix;
      this.factory = factory;
      this.base = base;
      this.doc = doc;
    }
  }

  private final ServiceModel service;

  ClientStubSpecs(ServiceModel service) {
    this.service = service;
  }

  /** Adds the four factories. */
  void addFactoriesTo(TypeSpec.Builder grpc) {
    for (Kind kind : Kind.values()) {
      ClassName stub = service.nested(kind.suffix);
      TypeSpec factory = TypeSpec.anonymousClassBuilder("")
          .addSuperinterface(ParameterizedTypeName.get(STUB_FACTORY, stub))
          .addMethod(MethodSpec.methodBuilder("newStub")
              .addAnnotation(Override.class)
              .addModifiers(Modifier.PUBLIC)
              .returns(stub)
              .addParameter(CHANNEL, "channel")
              .addParameter(CALL_OPTIONS, "callOptions")
              .addStatement("return new $T(channel, callOptions)", stub)
              .build())
          .build();
      grpc.addMethod(MethodSpec.methodBuilder(kind.factory)
          .addJavadoc(kind.doc)
          .addModifiers(Modifier.PUBLIC, Modifier.STATIC)
          .returns(stub)
          .addParameter(CHANNEL, "channel")
          .addStatement("$T factory =\n$L",
              ParameterizedTypeName.get(STUB_FACTORY, stub), factory)
          .addStatement("return $T.newStub(factory, channel)", stub)
          .build());
    }
  }

  /** Adds the four stub classes. */
  void addStubsTo(TypeSpec.Builder grpc) {
    for (Kind kind : Kind.values()) {
      grpc.addType(stub(kind));
    }
  }

  private TypeSpec stub(Kind kind) {
    ClassName stub = service.nested(kind.suffix);
    TypeSpec.Builder type = TypeSpec.classBuilder(stub)
        .addJavadoc("The $L stub for calls to service {@code $L}.\n",
            kind.name().toLowerCase(Locale.ROOT).replace('_', ' '), service.protoName())
        .addJavadoc(ProtoComments.javadocBlock(service.comment()))
        .addModifiers(Modifier.PUBLIC, Modifier.STATIC, Modifier.FINAL)
        .superclass(ParameterizedTypeName.get(kind.base, stub))
        .addMethod(MethodSpec.constructorBuilder()
            .addModifiers(Modifier.PRIVATE)
            .addParameter(CHANNEL, "channel")
            .addParameter(CALL_OPTIONS, "callOptions")
            .addStatement("super(channel, callOptions)")
            .build())
        .addMethod(MethodSpec.methodBuilder("build")
            .addAnnotation(Override.class)
            .addModifiers(Modifier.PROTECTED)
            .returns(stub)
            .addParameter(CHANNEL, "channel")
            .addParameter(CALL_OPTIONS, "callOptions")
            .addStatement("return new $T(channel, callOptions)", stub)
            .build());
    if (service.deprecated()) {
      type.addAnnotation(Deprecated.class);
    }
    for (MethodModel m : service.methods()) {
      MethodSpec call = call(kind, m);
      if (call != null) {
        type.addMethod(call);
      }
    }
    return type.build();
  }

  /** The stub method for {@code m}, or null when this kind of stub cannot make such calls. */
  private static MethodSpec call(Kind kind, MethodModel m) {
    MethodSpec.Builder method = MethodSpec.methodBuilder(m.javaName())
        .addModifiers(Modifier.PUBLIC);
    String doc = ProtoComments.javadocBlock(m.comment());
    method.addJavadoc(doc.isEmpty() ? "Calls {@code " + m.protoName() + "}.\n" : doc);
    if (m.deprecated()) {
      method.addAnnotation(Deprecated.class);
    }
    switch (kind) {
      case ASYNC -> async(method, m);
      case BLOCKING_V2 -> blockingV2(method, m);
      case BLOCKING -> {
        if (m.clientStreaming()) {
          return null;
        }
        blocking(method, m);
      }
      case FUTURE -> {
        if (m.clientStreaming() || m.serverStreaming()) {
          return null;
        }
        method.returns(ParameterizedTypeName.get(LISTENABLE_FUTURE, m.response()))
            .addParameter(m.request(), "request")
            .addStatement("return $T.futureUnaryCall(\ngetChannel().newCall($N(), "
                + "getCallOptions()), request)", CLIENT_CALLS, m.getterName());
      }
      default -> throw new AssertionError(kind);
    }
    return method.build();
  }

  private static void async(MethodSpec.Builder method, MethodModel m) {
    TypeName responses = observer(m.response());
    if (m.takesSingleRequest()) {
      method.addParameter(m.request(), "request")
          .addParameter(responses, "responseObserver")
          .addStatement("$T.$L(\ngetChannel().newCall($N(), getCallOptions()), request, "
                  + "responseObserver)", CLIENT_CALLS,
              m.serverStreaming() ? "asyncServerStreamingCall" : "asyncUnaryCall",
              m.getterName());
    } else {
      method.returns(observer(m.request()))
          .addParameter(responses, "responseObserver")
          .addStatement("return $T.$L(\ngetChannel().newCall($N(), getCallOptions()), "
                  + "responseObserver)", CLIENT_CALLS,
              m.serverStreaming() ? "asyncBidiStreamingCall" : "asyncClientStreamingCall",
              m.getterName());
    }
  }

  private static void blockingV2(MethodSpec.Builder method, MethodModel m) {
    if (!m.clientStreaming() && !m.serverStreaming()) {
      method.returns(m.response())
          .addParameter(m.request(), "request")
          .addException(STATUS_EXCEPTION)
          .addStatement("return $T.blockingV2UnaryCall(\ngetChannel(), $N(), getCallOptions(), "
              + "request)", CLIENT_CALLS, m.getterName());
    } else if (!m.clientStreaming()) {
      method.returns(ParameterizedTypeName.get(BLOCKING_CLIENT_CALL,
              WildcardTypeName.subtypeOf(Object.class), m.response()))
          .addParameter(m.request(), "request")
          .addStatement("return $T.blockingV2ServerStreamingCall(\ngetChannel(), $N(), "
              + "getCallOptions(), request)", CLIENT_CALLS, m.getterName());
    } else {
      method.returns(ParameterizedTypeName.get(BLOCKING_CLIENT_CALL, m.request(), m.response()))
          .addStatement("return $T.$L(\ngetChannel(), $N(), getCallOptions())", CLIENT_CALLS,
              m.serverStreaming() ? "blockingBidiStreamingCall" : "blockingClientStreamingCall",
              m.getterName());
    }
  }

  private static void blocking(MethodSpec.Builder method, MethodModel m) {
    method.addParameter(m.request(), "request");
    if (m.serverStreaming()) {
      method.returns(ParameterizedTypeName.get(ITERATOR, m.response()))
          .addStatement("return $T.blockingServerStreamingCall(\ngetChannel(), $N(), "
              + "getCallOptions(), request)", CLIENT_CALLS, m.getterName());
    } else {
      method.returns(m.response())
          .addStatement("return $T.blockingUnaryCall(\ngetChannel(), $N(), getCallOptions(), "
              + "request)", CLIENT_CALLS, m.getterName());
    }
  }
}
