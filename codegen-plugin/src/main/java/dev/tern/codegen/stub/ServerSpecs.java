package dev.tern.codegen.stub;

import static dev.tern.codegen.stub.GrpcTypes.BINDABLE_SERVICE;
import static dev.tern.codegen.stub.GrpcTypes.SERVER_CALLS;
import static dev.tern.codegen.stub.GrpcTypes.SERVER_SERVICE_DEFINITION;
import static dev.tern.codegen.stub.GrpcTypes.observer;

import com.palantir.javapoet.AnnotationSpec;
import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.FieldSpec;
import com.palantir.javapoet.MethodSpec;
import com.palantir.javapoet.ParameterizedTypeName;
import com.palantir.javapoet.TypeName;
import com.palantir.javapoet.TypeSpec;
import com.palantir.javapoet.TypeVariableName;
import java.util.ArrayList;
import java.util.List;
import javax.lang.model.element.Modifier;

/**
 * The server half of a {@code XxxGrpc} class: the {@code AsyncService} interface with
 * unimplemented defaults, {@code XxxImplBase}, the method-id dispatcher and
 * {@code bindService(AsyncService)}.
 */
final class ServerSpecs {
  private static final TypeVariableName REQ = TypeVariableName.get("Req");
  private static final TypeVariableName RESP = TypeVariableName.get("Resp");

  private final ServiceModel service;
  private final ClassName asyncService;

  ServerSpecs(ServiceModel service) {
    this.service = service;
    this.asyncService = service.grpcClass().nestedClass("AsyncService");
  }

  /** Adds {@code AsyncService} and {@code XxxImplBase}. */
  void addServiceTypesTo(TypeSpec.Builder grpc) {
    TypeSpec.Builder iface = TypeSpec.interfaceBuilder(asyncService)
        .addJavadoc("The server side of service {@code $L}: implement the methods it serves.\n",
            service.protoName())
        .addJavadoc(ProtoComments.javadocBlock(service.comment()))
        .addModifiers(Modifier.PUBLIC);
    for (MethodModel m : service.methods()) {
      iface.addMethod(defaultMethod(m));
    }
    grpc.addType(iface.build());
    TypeSpec.Builder base = TypeSpec.classBuilder(service.nested("ImplBase"))
        .addJavadoc("Base class for the server implementation of the service {@code $L}.\n",
            service.protoName())
        .addJavadoc(ProtoComments.javadocBlock(service.comment()))
        .addModifiers(Modifier.PUBLIC, Modifier.STATIC, Modifier.ABSTRACT)
        .addSuperinterface(BINDABLE_SERVICE)
        .addSuperinterface(asyncService)
        .addMethod(MethodSpec.methodBuilder("bindService")
            .addAnnotation(Override.class)
            .addModifiers(Modifier.PUBLIC, Modifier.FINAL)
            .returns(SERVER_SERVICE_DEFINITION)
            .addStatement("return $T.bindService(this)", service.grpcClass())
            .build());
    if (service.deprecated()) {
      base.addAnnotation(Deprecated.class);
    }
    grpc.addType(base.build());
  }

  /** Adds the method ids, the dispatcher and {@code bindService}. */
  void addBindingTo(TypeSpec.Builder grpc) {
    List<MethodModel> ordered = new ArrayList<>();
    // Stock output numbers single-request methods first, then streaming-request ones.
    service.methods().stream().filter(MethodModel::takesSingleRequest).forEach(ordered::add);
    service.methods().stream().filter(m -> !m.takesSingleRequest()).forEach(ordered::add);
    for (int i = 0; i < ordered.size(); i++) {
      grpc.addField(FieldSpec.builder(int.class, ordered.get(i).idField(),
              Modifier.PRIVATE, Modifier.STATIC, Modifier.FINAL)
          .initializer("$L", i)
          .build());
    }
    grpc.addType(handlers(ordered));
    CodeBlock.Builder body = CodeBlock.builder()
        .add("return $T.builder(getServiceDescriptor())\n", SERVER_SERVICE_DEFINITION)
        .indent().indent();
    ClassName handlers = service.grpcClass().nestedClass("MethodHandlers");
    for (MethodModel m : service.methods()) {
      body.add(".addMethod(\n$N(),\n$T.$L(new $T<$T, $T>(service, $N)))\n", m.getterName(),
          SERVER_CALLS, serverCall(m), handlers, m.request(), m.response(), m.idField());
    }
    body.add(".build();\n").unindent().unindent();
    grpc.addMethod(MethodSpec.methodBuilder("bindService")
        .addJavadoc("Binds an implementation of {@code AsyncService} to this service's "
            + "descriptor.\n")
        .addModifiers(Modifier.PUBLIC, Modifier.STATIC, Modifier.FINAL)
        .returns(SERVER_SERVICE_DEFINITION)
        .addParameter(asyncService, "service")
        .addCode(body.build())
        .build());
  }

  private static String serverCall(MethodModel m) {
    return switch (m.methodType()) {
      case "UNARY" -> "asyncUnaryCall";
      case "SERVER_STREAMING" -> "asyncServerStreamingCall";
      case "CLIENT_STREAMING" -> "asyncClientStreamingCall";
      default -> "asyncBidiStreamingCall";
    };
  }

  private MethodSpec defaultMethod(MethodModel m) {
    MethodSpec.Builder method = MethodSpec.methodBuilder(m.javaName())
        .addModifiers(Modifier.PUBLIC, Modifier.DEFAULT);
    String doc = ProtoComments.javadocBlock(m.comment());
    method.addJavadoc(doc.isEmpty() ? "Serves {@code " + m.protoName() + "}.\n" : doc);
    if (m.deprecated()) {
      method.addAnnotation(Deprecated.class);
    }
    TypeName responses = observer(m.response());
    if (m.takesSingleRequest()) {
      return method.addParameter(m.request(), "request")
          .addParameter(responses, "responseObserver")
          .addStatement("$T.asyncUnimplementedUnaryCall($N(), responseObserver)", SERVER_CALLS,
              m.getterName())
          .build();
    }
    return method.returns(observer(m.request()))
        .addParameter(responses, "responseObserver")
        .addStatement("return $T.asyncUnimplementedStreamingCall($N(), responseObserver)",
            SERVER_CALLS, m.getterName())
        .build();
  }

  private TypeSpec handlers(List<MethodModel> ordered) {
    AnnotationSpec unchecked = AnnotationSpec.builder(SuppressWarnings.class)
        .addMember("value", "$S", "unchecked")
        .build();
    MethodSpec.Builder single = MethodSpec.methodBuilder("invoke")
        .addAnnotation(Override.class)
        .addAnnotation(unchecked)
        .addModifiers(Modifier.PUBLIC)
        .addParameter(REQ, "request")
        .addParameter(observer(RESP), "responseObserver")
        .beginControlFlow("switch (methodId)");
    MethodSpec.Builder streaming = MethodSpec.methodBuilder("invoke")
        .addAnnotation(Override.class)
        .addAnnotation(unchecked)
        .addModifiers(Modifier.PUBLIC)
        .returns(observer(REQ))
        .addParameter(observer(RESP), "responseObserver")
        .beginControlFlow("switch (methodId)");
    for (MethodModel m : ordered) {
      MethodSpec.Builder target = m.takesSingleRequest() ? single : streaming;
      target.addCode("case $N:\n", m.idField());
      if (m.takesSingleRequest()) {
        target.addStatement("  serviceImpl.$N(($T) request,\n($T) responseObserver)",
            m.javaName(), m.request(), observer(m.response()));
        target.addStatement("  break");
      } else {
        target.addStatement("  return ($T) serviceImpl.$N(\n($T) responseObserver)",
            observer(REQ), m.javaName(), observer(m.response()));
      }
    }
    single.addCode("default:\n").addStatement("  throw new AssertionError()").endControlFlow();
    streaming.addCode("default:\n").addStatement("  throw new AssertionError()").endControlFlow();
    return TypeSpec.classBuilder("MethodHandlers")
        .addModifiers(Modifier.PRIVATE, Modifier.STATIC, Modifier.FINAL)
        .addTypeVariable(REQ)
        .addTypeVariable(RESP)
        .addSuperinterface(ParameterizedTypeName.get(SERVER_CALLS.nestedClass("UnaryMethod"),
            REQ, RESP))
        .addSuperinterface(ParameterizedTypeName.get(
            SERVER_CALLS.nestedClass("ServerStreamingMethod"), REQ, RESP))
        .addSuperinterface(ParameterizedTypeName.get(
            SERVER_CALLS.nestedClass("ClientStreamingMethod"), REQ, RESP))
        .addSuperinterface(ParameterizedTypeName.get(
            SERVER_CALLS.nestedClass("BidiStreamingMethod"), REQ, RESP))
        .addField(asyncService, "serviceImpl", Modifier.PRIVATE, Modifier.FINAL)
        .addField(int.class, "methodId", Modifier.PRIVATE, Modifier.FINAL)
        .addMethod(MethodSpec.constructorBuilder()
            .addParameter(asyncService, "serviceImpl")
            .addParameter(int.class, "methodId")
            .addStatement("this.serviceImpl = serviceImpl")
            .addStatement("this.methodId = methodId")
            .build())
        .addMethod(single.build())
        .addMethod(streaming.build())
        .build();
  }
}
