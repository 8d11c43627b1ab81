package dev.tern.codegen.stub;

import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.ServiceDescriptorProto;
import com.palantir.javapoet.ClassName;
import java.util.ArrayList;
import java.util.List;

/**
 * One service of a proto file and the names of the classes generated for it.
 *
 * @param protoName the simple service name ({@code Greeter})
 * @param fullName the fully qualified service name ({@code helloworld.Greeter})
 * @param grpcClass the generated outer class ({@code GreeterGrpc})
 * @param fileOuterClass the proto file's outer class, which holds {@code getDescriptor()}
 * @param protoFile the proto file's name, for the generated comment
 * @param deprecated whether the proto marks the service deprecated
 * @param comment the proto's leading comment, or empty
 * @param methods the methods in proto order
 */
record ServiceModel(
    String protoName,
    String fullName,
    ClassName grpcClass,
    ClassName fileOuterClass,
    String protoFile,
    boolean deprecated,
    String comment,
    List<MethodModel> methods) {

  /** Builds the model of the service at {@code index} of {@code file}. */
  static ServiceModel of(FileDescriptorProto file, int index, ProtoTypeNames types) {
    ServiceDescriptorProto service = file.getService(index);
    ProtoComments comments = new ProtoComments(file);
    List<MethodModel> methods = new ArrayList<>();
    for (int m = 0; m < service.getMethodCount(); m++) {
      methods.add(MethodModel.of(service.getMethod(m), types, comments.method(index, m)));
    }
    String fullName = file.getPackage().isEmpty()
        ? service.getName()
        : file.getPackage() + "." + service.getName();
    return new ServiceModel(
        service.getName(),
        fullName,
        ClassName.get(ProtoTypeNames.javaPackage(file), service.getName() + "Grpc"),
        types.outerClass(file.getName()),
        file.getName(),
        service.getOptions().getDeprecated(),
        comments.service(index),
        List.copyOf(methods));
  }

  /** A nested class name of the generated outer class: {@code GreeterStub} and so on. */
  ClassName nested(String suffix) {
    return grpcClass.nestedClass(protoName + suffix);
  }
}
