package dev.tern.codegen.stub;

import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.SourceCodeInfo.Location;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Leading comments of services and methods, from a descriptor's source info. */
final class ProtoComments {
  /** {@code FileDescriptorProto.service} field number. */
  private static final int SERVICE_FIELD = 6;
  /** {@code ServiceDescriptorProto.method} field number. */
  private static final int METHOD_FIELD = 2;

  private final Map<List<Integer>, String> leading = new HashMap<>();

  /** Indexes the comments of one file (none if it was compiled without source info). */
  ProtoComments(FileDescriptorProto file) {
    for (Location location : file.getSourceCodeInfo().getLocationList()) {
      if (location.hasLeadingComments()) {
        leading.put(location.getPathList(), location.getLeadingComments());
      }
    }
  }

  /** The leading comment of service {@code s}, or empty. */
  String service(int s) {
    return leading.getOrDefault(List.of(SERVICE_FIELD, s), "");
  }

  /** The leading comment of method {@code m} of service {@code s}, or empty. */
  String method(int s, int m) {
    return leading.getOrDefault(List.of(SERVICE_FIELD, s, METHOD_FIELD, m), "");
  }

  /**
   * The comment as a Javadoc {@code <pre>} block, escaped so that it cannot end the comment
   * or start a tag; empty when there is no comment.
   */
  static String javadocBlock(String comment) {
    if (comment.isEmpty()) {
      return "";
    }
    StringBuilder out = new StringBuilder("<pre>\n");
    // protoc keeps the space after "//"; Javadoc adds its own.
    boolean lineStart = true;
    for (int i = 0; i < comment.length(); i++) {
      char c = comment.charAt(i);
      if (lineStart && c == ' ') {
        lineStart = false;
        continue;
      }
      lineStart = c == '\n';
      switch (c) {
        case '&' -> out.append("&amp;");
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '@' -> out.append("&#64;");
        case '\\' -> out.append("&#92;");
        case '*' -> out.append("&#42;");
        case '/' -> out.append("&#47;");
        default -> out.append(c);
      }
    }
    if (comment.charAt(comment.length() - 1) != '\n') {
      out.append('\n');
    }
    return out.append("</pre>\n").toString();
  }
}
