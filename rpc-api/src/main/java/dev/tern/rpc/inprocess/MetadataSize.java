package dev.tern.rpc.inprocess;

import io.grpc.Metadata;

/**
 * The size of a header block as HTTP/2 counts it for {@code SETTINGS_MAX_HEADER_LIST_SIZE} (RFC
 * 7540 §6.5.2: each field's name and value plus 32 bytes), binary values as the base64 text they
 * would travel as, so that the in-process transport enforces {@code maxInboundMetadataSize} as a
 * network transport would.
 */
final class MetadataSize {
  private MetadataSize() {}

  static int of(Metadata md) {
    long size = 0;
    for (String name : md.keys()) {
      if (name.endsWith(Metadata.BINARY_HEADER_SUFFIX)) {
        for (byte[] v : md.getAll(Metadata.Key.of(name, Metadata.BINARY_BYTE_MARSHALLER))) {
          size += 32 + name.length() + (v.length + 2L) / 3 * 4;
        }
      } else {
        for (String v : md.getAll(Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER))) {
          size += 32 + name.length() + v.length();
        }
      }
    }
    return (int) Math.min(size, Integer.MAX_VALUE);
  }
}
