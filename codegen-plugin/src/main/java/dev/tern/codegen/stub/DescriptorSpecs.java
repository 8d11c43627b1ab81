package dev.tern.codegen.stub;

import static dev.tern.codegen.stub.GrpcTypes.FILE_DESCRIPTOR;
import static dev.tern.codegen.stub.GrpcTypes.METHOD_DESCRIPTOR;
import static dev.tern.codegen.stub.GrpcTypes.METHOD_TYPE;
import static dev.tern.codegen.stub.GrpcTypes.PROTO_FILE_SUPPLIER;
import static dev.tern.codegen.stub.GrpcTypes.PROTO_LITE_UTILS;
import static dev.tern.codegen.stub.GrpcTypes.PROTO_METHOD_DESCRIPTOR;
import static dev.tern.codegen.stub.GrpcTypes.PROTO_METHOD_SUPPLIER;
import static dev.tern.codegen.stub.GrpcTypes.PROTO_SERVICE_DESCRIPTOR;
import static dev.tern.codegen.stub.GrpcTypes.PROTO_SERVICE_SUPPLIER;
import static dev.tern.codegen.stub.GrpcTypes.PROTO_UTILS;
import static dev.tern.codegen.stub.GrpcTypes.RPC_METHOD;
import static dev.tern.codegen.stub.GrpcTypes.SERVICE_DESCRIPTOR;
import static dev.tern.codegen.stub.GrpcTypes.STRING;
import static dev.tern.codegen.stub.GrpcTypes.TERN_METHOD_OPTIONS;
import static dev.tern.codegen.stub.GrpcTypes.TERN_PRIORITY;

import com.google.protobuf.DescriptorProtos.MethodOptions.IdempotencyLevel;
import com.palantir.javapoet.AnnotationSpec;
import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.FieldSpec;
import com.palantir.javapoet.MethodSpec;
import com.palantir.javapoet.TypeName;
import com.palantir.javapoet.TypeSpec;
import javax.lang.model.element.Modifier;

/**
 * The descriptor half of a {@code XxxGrpc} class: {@code SERVICE_NAME}, one lazily built
 * {@code MethodDescriptor} per method, {@code getServiceDescriptor()}, the schema descriptor
 * suppliers that server reflection reads, and Tern's default-priority registrations.
 */
final class DescriptorSpecs {
  private final ServiceModel service;
  private final boolean lite;

  DescriptorSpecs(ServiceModel service, boolean lite) {
    this.service = service;
    this.lite = lite;
  }

  /** Adds every member this class is responsible for. */
  void addTo(TypeSpec.Builder grpc) {
    grpc.addField(FieldSpec.builder(STRING, "SERVICE_NAME",
            Modifier.PUBLIC, Modifier.STATIC, Modifier.FINAL)
        .initializer("$S", service.fullName())
        .build());
    for (MethodModel m : service.methods()) {
      grpc.addField(FieldSpec.builder(GrpcTypes.methodDescriptor(m), m.getterName(),
          Modifier.PRIVATE, Modifier.STATIC, Modifier.VOLATILE).build());
      grpc.addMethod(getter(m));
    }
    CodeBlock priorities = priorityRegistrations();
    if (!priorities.isEmpty()) {
      grpc.addStaticBlock(priorities);
    }
  }

  /** Adds the suppliers and {@code getServiceDescriptor()}, which stock output places last. */
  void addServiceDescriptorTo(TypeSpec.Builder grpc) {
    if (!lite) {
      addSuppliers(grpc);
    }
    grpc.addField(FieldSpec.builder(SERVICE_DESCRIPTOR, "serviceDescriptor",
        Modifier.PRIVATE, Modifier.STATIC, Modifier.VOLATILE).build());
    CodeBlock.Builder build = CodeBlock.builder()
        .add("serviceDescriptor = result = $T.newBuilder(SERVICE_NAME)\n", SERVICE_DESCRIPTOR)
        .indent().indent();
    if (!lite) {
      build.add(".setSchemaDescriptor(new $T())\n", supplier("FileDescriptorSupplier"));
    }
    for (MethodModel m : service.methods()) {
      build.add(".addMethod($N())\n", m.getterName());
    }
    build.add(".build();\n").unindent().unindent();
    grpc.addMethod(MethodSpec.methodBuilder("getServiceDescriptor")
        .addJavadoc("The service's descriptor, with every method.\n")
        .addModifiers(Modifier.PUBLIC, Modifier.STATIC)
        .returns(SERVICE_DESCRIPTOR)
        .addStatement("$T result = serviceDescriptor", SERVICE_DESCRIPTOR)
        .beginControlFlow("if (result == null)")
        .beginControlFlow("synchronized ($T.class)", service.grpcClass())
        .addStatement("result = serviceDescriptor")
        .beginControlFlow("if (result == null)")
        .addCode(build.build())
        .endControlFlow()
        .endControlFlow()
        .endControlFlow()
        .addStatement("return result")
        .build());
  }

  private MethodSpec getter(MethodModel m) {
    TypeName type = GrpcTypes.methodDescriptor(m);
    ClassName grpc = service.grpcClass();
    String field = m.getterName();
    CodeBlock.Builder build = CodeBlock.builder()
        .add("$T.$N = $N =\n", grpc, field, field)
        .indent().indent()
        .add("$T.<$T, $T>newBuilder()\n", METHOD_DESCRIPTOR, m.request(), m.response())
        .add(".setType($T.$L)\n", METHOD_TYPE, m.methodType())
        .add(".setFullMethodName(generateFullMethodName(SERVICE_NAME, $S))\n", m.protoName());
    // The stock generator's rule: NO_SIDE_EFFECTS marks the method safe only (safe implies
    // idempotent; Tern's early-data rule reads either flag), IDEMPOTENT marks it idempotent.
    if (m.idempotency() == IdempotencyLevel.NO_SIDE_EFFECTS) {
      build.add(".setSafe(true)\n");
    } else if (m.idempotency() == IdempotencyLevel.IDEMPOTENT) {
      build.add(".setIdempotent(true)\n");
    }
    build.add(".setSampledToLocalTracing(true)\n")
        .add(".setRequestMarshaller($L)\n", marshaller(m.request()))
        .add(".setResponseMarshaller($L)\n", marshaller(m.response()));
    if (!lite) {
      build.add(".setSchemaDescriptor(new $T($S))\n", supplier("MethodDescriptorSupplier"),
          m.protoName());
    }
    build.add(".build();\n").unindent().unindent();
    MethodSpec.Builder getter = MethodSpec.methodBuilder(field)
        .addJavadoc("The descriptor of {@code $L}.\n", m.protoName())
        .addAnnotation(AnnotationSpec.builder(RPC_METHOD)
            .addMember("fullMethodName", "SERVICE_NAME + '/' + $S", m.protoName())
            .addMember("requestType", "$T.class", m.request())
            .addMember("responseType", "$T.class", m.response())
            .addMember("methodType", "$T.$L", METHOD_TYPE, m.methodType())
            .build())
        .addModifiers(Modifier.PUBLIC, Modifier.STATIC)
        .returns(type)
        .addStatement("$T $N", type, field)
        .beginControlFlow("if (($N = $T.$N) == null)", field, grpc, field)
        .beginControlFlow("synchronized ($T.class)", grpc)
        .beginControlFlow("if (($N = $T.$N) == null)", field, grpc, field)
        .addCode(build.build())
        .endControlFlow()
        .endControlFlow()
        .endControlFlow()
        .addStatement("return $N", field);
    return getter.build();
  }

  private CodeBlock marshaller(ClassName message) {
    return CodeBlock.of("$T.marshaller($T.getDefaultInstance())",
        lite ? PROTO_LITE_UTILS : PROTO_UTILS, message);
  }

  private CodeBlock priorityRegistrations() {
    CodeBlock.Builder block = CodeBlock.builder();
    for (MethodModel m : service.methods()) {
      TernPriorityOption p = m.priority();
      if (p != null) {
        block.addStatement("$T.registerDefaultPriority(SERVICE_NAME + '/' + $S, $T.of($L, $L))",
            TERN_METHOD_OPTIONS, m.protoName(), TERN_PRIORITY, p.urgency(), p.incremental());
      }
    }
    return block.build();
  }

  private ClassName supplier(String suffix) {
    return service.nested(suffix);
  }

  private void addSuppliers(TypeSpec.Builder grpc) {
    ClassName base = supplier("BaseDescriptorSupplier");
    grpc.addType(TypeSpec.classBuilder(base)
        .addModifiers(Modifier.PRIVATE, Modifier.STATIC, Modifier.ABSTRACT)
        .addSuperinterface(PROTO_FILE_SUPPLIER)
        .addSuperinterface(PROTO_SERVICE_SUPPLIER)
        .addMethod(MethodSpec.constructorBuilder().build())
        .addMethod(MethodSpec.methodBuilder("getFileDescriptor")
            .addAnnotation(Override.class)
            .addModifiers(Modifier.PUBLIC)
            .returns(FILE_DESCRIPTOR)
            .addStatement("return $T.getDescriptor()", service.fileOuterClass())
            .build())
        .addMethod(MethodSpec.methodBuilder("getServiceDescriptor")
            .addAnnotation(Override.class)
            .addModifiers(Modifier.PUBLIC)
            .returns(PROTO_SERVICE_DESCRIPTOR)
            .addStatement("return getFileDescriptor().findServiceByName($S)", service.protoName())
            .build())
        .build());
    grpc.addType(TypeSpec.classBuilder(supplier("FileDescriptorSupplier"))
        .addModifiers(Modifier.PRIVATE, Modifier.STATIC, Modifier.FINAL)
        .superclass(base)
        .addMethod(MethodSpec.constructorBuilder().build())
        .build());
    grpc.addType(TypeSpec.classBuilder(supplier("MethodDescriptorSupplier"))
        .addModifiers(Modifier.PRIVATE, Modifier.STATIC, Modifier.FINAL)
        .superclass(base)
        .addSuperinterface(PROTO_METHOD_SUPPLIER)
        .addField(STRING, "methodName", Modifier.PRIVATE, Modifier.FINAL)
        .addMethod(MethodSpec.constructorBuilder()
            .addParameter(STRING, "methodName")
            .addStatement("this.methodName = methodName")
            .build())
        .addMethod(MethodSpec.methodBuilder("getMethodDescriptor")
            .addAnnotation(Override.class)
            .addModifiers(Modifier.PUBLIC)
            .returns(PROTO_METHOD_DESCRIPTOR)
            .addStatement("return getServiceDescriptor().findMethodByName(methodName)")
            .build())
        .build());
  }
}
