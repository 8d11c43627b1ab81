package dev.tern.codegen.stub;

import com.google.protobuf.ByteString;
import com.google.protobuf.DescriptorProtos.MethodOptions;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UnknownFieldSet;
import java.util.List;

/**
 * Tern's {@code (tern.tern_priority)} method option, read from the method options' unknown
 * fields by field number so the generator needs no compiled copy of {@code tern/options.proto}.
 *
 * @param urgency 0 (most urgent) to 7 (least urgent), as in RFC 9218 §4.1
 * @param incremental the RFC 9218 §4.2 incremental flag
 */
record TernPriorityOption(int urgency, boolean incremental) {
  /** Field number of {@code tern_priority} in {@code tern/options.proto}. */
  static final int FIELD_NUMBER = 51234;
  private static final int URGENCY_FIELD = 1;
  private static final int INCREMENTAL_FIELD = 2;
  /** The message is proto3: an urgency of 0 is not written, so absent means 0. */
  private static final int ABSENT_URGENCY = 0;

  /**
   * Reads the option, or returns null when the method does not declare it.
   *
   * @throws IllegalArgumentException if the option is malformed or its urgency is outside 0..7
   */
  static TernPriorityOption read(MethodOptions options) {
    UnknownFieldSet.Field field = options.getUnknownFields().getField(FIELD_NUMBER);
    List<ByteString> values = field.getLengthDelimitedList();
    if (values.isEmpty()) {
      return null;
    }
    // Protobuf merges repeated occurrences of a singular message field; so do we.
    UnknownFieldSet.Builder merged = UnknownFieldSet.newBuilder();
    try {
      for (ByteString value : values) {
        merged.mergeFrom(value);
      }
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalArgumentException("tern_priority option is not a valid message", e);
    }
    UnknownFieldSet message = merged.build();
    int urgency = (int) last(message.getField(URGENCY_FIELD).getVarintList(), ABSENT_URGENCY);
    boolean incremental = last(message.getField(INCREMENTAL_FIELD).getVarintList(), 0) != 0;
    if (urgency < 0 || urgency > 7) {
      throw new IllegalArgumentException("tern_priority urgency must be in 0..7, was " + urgency);
    }
    return new TernPriorityOption(urgency, incremental);
  }

  private static long last(List<Long> values, long absent) {
    return values.isEmpty() ? absent : values.get(values.size() - 1);
  }
}
