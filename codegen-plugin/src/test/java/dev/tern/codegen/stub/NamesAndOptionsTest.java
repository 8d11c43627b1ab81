package dev.tern.codegen.stub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileOptions;
import com.google.protobuf.DescriptorProtos.MethodOptions;
import com.google.protobuf.DescriptorProtos.ServiceDescriptorProto;
import com.google.protobuf.UnknownFieldSet;
import org.junit.jupiter.api.Test;

class NamesAndOptionsTest {
  @Test
  void methodNamesFollowProtocGenGrpcJava() {
    assertThat(JavaNames.mixedLower("SayHello")).isEqualTo("sayHello");
    assertThat(JavaNames.mixedLower("say_hello")).isEqualTo("sayHello");
    assertThat(JavaNames.mixedLower("new")).isEqualTo("new_");
    assertThat(JavaNames.methodGetter("say_hello")).isEqualTo("getSayHelloMethod");
    assertThat(JavaNames.methodIdField("SayHello")).isEqualTo("METHODID_SAY_HELLO");
    assertThat(JavaNames.methodIdField("say_many")).isEqualTo("METHODID_SAY_MANY");
  }

  @Test
  void outerClassNameAvoidsClashesAndHonoursTheOption() {
    FileDescriptorProto clash = FileDescriptorProto.newBuilder().setName("a/echo_v2.proto")
        .addService(ServiceDescriptorProto.newBuilder().setName("EchoV2")).build();
    assertThat(ProtoTypeNames.outerClassName(clash)).isEqualTo("EchoV2OuterClass");
    FileDescriptorProto plain = FileDescriptorProto.newBuilder().setName("a/my-file.proto").build();
    assertThat(ProtoTypeNames.outerClassName(plain)).isEqualTo("MyFile");
    FileDescriptorProto named = plain.toBuilder()
        .setOptions(FileOptions.newBuilder().setJavaOuterClassname("Named")).build();
    assertThat(ProtoTypeNames.outerClassName(named)).isEqualTo("Named");
  }

  @Test
  void readsTernPriorityFromUnknownFields() {
    assertThat(TernPriorityOption.read(MethodOptions.getDefaultInstance())).isNull();
    assertThat(TernPriorityOption.read(withPriority(priority(5, true))))
        .isEqualTo(new TernPriorityOption(5, true));
    // proto3: urgency 0 is not written.
    assertThat(TernPriorityOption.read(withPriority(UnknownFieldSet.getDefaultInstance())))
        .isEqualTo(new TernPriorityOption(0, false));
    assertThatThrownBy(() -> TernPriorityOption.read(withPriority(priority(9, false))))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was 9");
  }

  private static UnknownFieldSet priority(int urgency, boolean incremental) {
    return UnknownFieldSet.newBuilder()
        .addField(1, UnknownFieldSet.Field.newBuilder().addVarint(urgency).build())
        .addField(2, UnknownFieldSet.Field.newBuilder().addVarint(incremental ? 1 : 0).build())
        .build();
  }

  private static MethodOptions withPriority(UnknownFieldSet value) {
    ByteString bytes = value.toByteString();
    return MethodOptions.newBuilder().setUnknownFields(UnknownFieldSet.newBuilder()
        .addField(TernPriorityOption.FIELD_NUMBER,
            UnknownFieldSet.Field.newBuilder().addLengthDelimited(bytes).build())
        .build()).build();
  }
}
