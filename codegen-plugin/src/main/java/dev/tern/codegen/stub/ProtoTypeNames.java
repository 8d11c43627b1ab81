package dev.tern.codegen.stub;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.DescriptorProtos.ServiceDescriptorProto;
import com.palantir.javapoet.ClassName;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Maps fully qualified proto message names to the Java classes protobuf's Java generator emits
 * for them, honouring {@code java_package}, {@code java_multiple_files},
 * {@code java_outer_classname} and nesting.
 */
final class ProtoTypeNames {
  private final Map<String, ClassName> messages = new HashMap<>();
  private final Map<String, ClassName> outerClasses = new HashMap<>();

  /** Indexes every file of the set (which should include imports). */
  ProtoTypeNames(FileDescriptorSet set) {
    for (FileDescriptorProto file : set.getFileList()) {
      index(file);
    }
  }

  /** The Java class of a proto message, from its name as descriptors spell it ({@code .pkg.Msg}). */
  ClassName message(String protoTypeName) {
    String key = protoTypeName.startsWith(".") ? protoTypeName.substring(1) : protoTypeName;
    ClassName name = messages.get(key);
    if (name == null) {
      throw new IllegalArgumentException(
          "protoTypeName " + protoTypeName + " is not in the descriptor set (missing import?)");
    }
    return name;
  }

  /** The outer class of a proto file, which holds {@code getDescriptor()}. */
  ClassName outerClass(String protoFileName) {
    ClassName name = outerClasses.get(protoFileName);
    if (name == null) {
      throw new IllegalArgumentException("protoFileName " + protoFileName + " is not in the set");
    }
    return name;
  }

  /** The Java package of a proto file: {@code java_package}, else the proto package. */
  static String javaPackage(FileDescriptorProto file) {
    if (file.getOptions().hasJavaPackage()) {
      return file.getOptions().getJavaPackage();
    }
    return file.getPackage();
  }

  private void index(FileDescriptorProto file) {
    String javaPackage = javaPackage(file);
    ClassName outer = ClassName.get(javaPackage, outerClassName(file));
    outerClasses.put(file.getName(), outer);
    boolean multipleFiles = file.getOptions().getJavaMultipleFiles();
    String protoPrefix = file.getPackage().isEmpty() ? "" : file.getPackage() + ".";
    for (DescriptorProto message : file.getMessageTypeList()) {
      ClassName top = multipleFiles
          ? ClassName.get(javaPackage, message.getName())
          : outer.nestedClass(message.getName());
      indexMessage(protoPrefix + message.getName(), top, message);
    }
  }

  private void indexMessage(String protoName, ClassName javaName, DescriptorProto message) {
    messages.put(protoName, javaName);
    for (DescriptorProto nested : message.getNestedTypeList()) {
      indexMessage(protoName + "." + nested.getName(), javaName.nestedClass(nested.getName()),
          nested);
    }
  }

  /**
   * {@code java_outer_classname}, else the camel-cased file name, with {@code OuterClass}
   * appended when a message, enum or service of the file already has that name.
   */
  static String outerClassName(FileDescriptorProto file) {
    if (file.getOptions().hasJavaOuterClassname()) {
      return file.getOptions().getJavaOuterClassname();
    }
    String name = JavaNames.fileClassName(file.getName());
    return conflicts(file, name) ? name + "OuterClass" : name;
  }

  private static boolean conflicts(FileDescriptorProto file, String name) {
    for (ServiceDescriptorProto service : file.getServiceList()) {
      if (service.getName().equals(name)) {
        return true;
      }
    }
    for (EnumDescriptorProto e : file.getEnumTypeList()) {
      if (e.getName().equals(name)) {
        return true;
      }
    }
    return anyMessageNamed(file.getMessageTypeList(), name);
  }

  private static boolean anyMessageNamed(List<DescriptorProto> messages, String name) {
    for (DescriptorProto message : messages) {
      if (message.getName().equals(name) || anyMessageNamed(message.getNestedTypeList(), name)) {
        return true;
      }
      for (EnumDescriptorProto e : message.getEnumTypeList()) {
        if (e.getName().equals(name)) {
          return true;
        }
      }
    }
    return false;
  }
}
