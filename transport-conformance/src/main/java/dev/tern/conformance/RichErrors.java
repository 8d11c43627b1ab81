package dev.tern.conformance;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.Code;
import com.google.rpc.ErrorInfo;

/** gRPC's rich error model ({@code google.rpc.Status} in {@code grpc-status-details-bin}) for the cases. */
final class RichErrors {
  private RichErrors() {}

  /** A serialised {@code google.rpc.Status} with one {@code ErrorInfo} detail. */
  static byte[] details(String domain, String message) {
    return status(domain, message).toByteArray();
  }

  /** A {@code google.rpc.Status} of code FAILED_PRECONDITION with one {@code ErrorInfo} detail. */
  static com.google.rpc.Status status(String domain, String message) {
    return com.google.rpc.Status.newBuilder().setCode(Code.FAILED_PRECONDITION_VALUE).setMessage(message)
        .addDetails(Any.pack(ErrorInfo.newBuilder().setReason("LIMIT_EXCEEDED").setDomain(domain)
            .putMetadata("limit", "100").putMetadata("unit", "%").build()))
        .build();
  }

  /** Parses a serialised {@code google.rpc.Status}. */
  static com.google.rpc.Status parse(byte[] bytes) {
    try {
      return com.google.rpc.Status.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      throw new AssertionError("grpc-status-details-bin is not a google.rpc.Status", e);
    }
  }
}
