package dev.tern.codegen.stub;

import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.JavaFile;
import com.palantir.javapoet.MethodSpec;
import com.palantir.javapoet.TypeSpec;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import javax.lang.model.element.Modifier;

/**
 * Generates one {@code XxxGrpc} class per service, source-compatible with what
 * {@code protoc-gen-grpc-java} emits, from a descriptor set written by
 * {@code protoc --descriptor_set_out --include_imports --include_source_info}.
 *
 * <p>Tern extras: {@code idempotency_level} sets the method descriptor's safe and idempotent
 * flags, and {@code (tern.tern_priority)} registers the method's default priority with
 * {@code dev.tern.rpc.TernMethodOptions}; that call is emitted only for methods that declare
 * the option, so other generated code needs grpc-java alone.
 */
public final class GrpcGenerator {
  private final boolean lite;

  /**
   * Creates a generator.
   *
   * @param lite whether messages are generated for protobuf-javalite (no schema descriptors,
   *     lite marshallers)
   */
  public GrpcGenerator(boolean lite) {
    this.lite = lite;
  }

  /**
   * Generates the service classes of the named files.
   *
   * @param set every file the named ones need, imports included
   * @param filesToGenerate proto file names (as protoc names them, relative to their include
   *     path) whose services get classes; imports not named here get none
   * @return one Java file per service
   * @throws IllegalArgumentException if a named file is not in the set or names an unknown type
   */
  public List<JavaFile> generate(FileDescriptorSet set, Collection<String> filesToGenerate) {
    ProtoTypeNames types = new ProtoTypeNames(set);
    List<JavaFile> out = new ArrayList<>();
    for (String name : filesToGenerate) {
      FileDescriptorProto file = set.getFileList().stream()
          .filter(f -> f.getName().equals(name))
          .findFirst()
          .orElseThrow(() -> new IllegalArgumentException(
              "filesToGenerate names " + name + ", which is not in the descriptor set"));
      for (int s = 0; s < file.getServiceCount(); s++) {
        out.add(generate(ServiceModel.of(file, s, types)));
      }
    }
    return out;
  }

  private JavaFile generate(ServiceModel service) {
    TypeSpec.Builder grpc = TypeSpec.classBuilder(service.grpcClass())
        .addJavadoc("Stubs and service base for {@code $L}, generated from {@code $L}.\n",
            service.fullName(), service.protoFile())
        .addJavadoc(ProtoComments.javadocBlock(service.comment()))
        .addAnnotation(GrpcTypes.GRPC_GENERATED)
        .addModifiers(Modifier.PUBLIC, Modifier.FINAL)
        .addMethod(MethodSpec.constructorBuilder().addModifiers(Modifier.PRIVATE).build());
    if (service.deprecated()) {
      grpc.addAnnotation(Deprecated.class);
    }
    for (MethodModel m : service.methods()) {
      // A message named like a type the stubs use (Channel, String...) must not shadow it.
      qualifyIfClashing(grpc, m.request());
      qualifyIfClashing(grpc, m.response());
    }
    DescriptorSpecs descriptors = new DescriptorSpecs(service, lite);
    ClientStubSpecs client = new ClientStubSpecs(service);
    ServerSpecs server = new ServerSpecs(service);
    descriptors.addTo(grpc);
    client.addFactoriesTo(grpc);
    server.addServiceTypesTo(grpc);
    client.addStubsTo(grpc);
    server.addBindingTo(grpc);
    descriptors.addServiceDescriptorTo(grpc);
    return JavaFile.builder(service.grpcClass().packageName(), grpc.build())
        .addStaticImport(GrpcTypes.METHOD_DESCRIPTOR, "generateFullMethodName")
        .skipJavaLangImports(true)
        .indent("  ")
        .build();
  }

  private static void qualifyIfClashing(TypeSpec.Builder grpc, ClassName message) {
    String top = message.topLevelClassName().simpleName();
    if (GrpcTypes.SIMPLE_NAMES.contains(top)) {
      grpc.alwaysQualify(top);
    }
  }
}
