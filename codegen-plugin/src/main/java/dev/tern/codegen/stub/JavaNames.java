package dev.tern.codegen.stub;

import java.util.Set;

/** Java identifiers derived from proto names, following the rules of protoc-gen-grpc-java. */
final class JavaNames {
  private static final Set<String> KEYWORDS = Set.of(
      "abstract", "assert", "boolean", "break", "byte", "case", "catch", "char", "class", "const",
      "continue", "default", "do", "double", "else", "enum", "extends", "final", "finally",
      "float", "for", "goto", "if", "implements", "import", "instanceof", "int", "interface",
      "long", "native", "new", "package", "private", "protected", "public", "return", "short",
      "static", "strictfp", "super", "switch", "synchronized", "this", "throw", "throws",
      "transient", "try", "void", "volatile", "while", "true", "false", "null");

  private JavaNames() {}

  /**
   * Lower-camel form: first letter lowered, underscores removed with the next letter raised, and
   * a trailing underscore when the result is a Java keyword ({@code new} becomes {@code new_}).
   */
  static String mixedLower(String word) {
    StringBuilder w = new StringBuilder(word.length());
    w.append(Character.toLowerCase(word.charAt(0)));
    boolean afterUnderscore = false;
    for (int i = 1; i < word.length(); i++) {
      char c = word.charAt(i);
      if (c == '_') {
        afterUnderscore = true;
      } else {
        w.append(afterUnderscore ? Character.toUpperCase(c) : c);
        afterUnderscore = false;
      }
    }
    String result = w.toString();
    return KEYWORDS.contains(result) ? result + "_" : result;
  }

  /** {@code SayHello} and {@code say_hello} both become {@code SAY_HELLO}. */
  static String allUpperCase(String word) {
    StringBuilder w = new StringBuilder(word.length() + 4);
    for (int i = 0; i < word.length(); i++) {
      char c = word.charAt(i);
      w.append(Character.toUpperCase(c));
      if (i < word.length() - 1 && isAsciiLower(c) && isAsciiUpper(word.charAt(i + 1))) {
        w.append('_');
      }
    }
    return w.toString();
  }

  /** The name of a method's descriptor getter: {@code say_hello} becomes {@code getSayHelloMethod}. */
  static String methodGetter(String protoMethodName) {
    return mixedLower("get_" + protoMethodName + "_method");
  }

  /** The name of a method's id constant: {@code METHODID_SAY_HELLO}. */
  static String methodIdField(String protoMethodName) {
    return "METHODID_" + allUpperCase(protoMethodName);
  }

  /**
   * The default outer class name of a proto file, as protobuf's Java generator derives it:
   * the base name without {@code .proto}, camel-cased at every non-alphanumeric character and
   * after digits.
   */
  static String fileClassName(String protoPath) {
    String base = protoPath.substring(protoPath.lastIndexOf('/') + 1);
    if (base.endsWith(".proto")) {
      base = base.substring(0, base.length() - ".proto".length());
    } else if (base.endsWith(".protodevel")) {
      base = base.substring(0, base.length() - ".protodevel".length());
    }
    StringBuilder out = new StringBuilder(base.length());
    boolean capNext = true;
    for (int i = 0; i < base.length(); i++) {
      char c = base.charAt(i);
      if (isAsciiLower(c)) {
        out.append(capNext ? Character.toUpperCase(c) : c);
        capNext = false;
      } else if (isAsciiUpper(c)) {
        out.append(c);
        capNext = false;
      } else if (c >= '0' && c <= '9') {
        out.append(c);
        capNext = true;
      } else {
        capNext = true;
      }
    }
    return out.toString();
  }

  private static boolean isAsciiLower(char c) {
    return c >= 'a' && c <= 'z';
  }

  private static boolean isAsciiUpper(char c) {
    return c >= 'A' && c <= 'Z';
  }
}
