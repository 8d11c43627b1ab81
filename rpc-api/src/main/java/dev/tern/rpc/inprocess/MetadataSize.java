package dev.tern.rpc.inprocess;

import io.grpc.Metadata;

/**
 * The size of metadata as HTTP/2 counts a header list (RFC 9113 §6.5.2: each field's name and
 * value octets plus 32), which grpc-java's {@code maxInboundMetadataSize} limits on every
 * transport, its in-process one included.
 */
final class MetadataSize {
  private static final int FIELD_OVERHEAD = 32;

  private MetadataSize() {}

  static long of(Metadata md) {
    long size = 0;
    for (String name : md.keys()) {
      if (name.endsWith(Metadata.BINARY_HEADER_SUFFIX)) {
        for (byte[] v : md.getAll(Metadata.Key.of(name, Metadata.BINARY_BYTE_MARSHALLER))) {
          size += name.length() + v.length + FIELD_OVERHEAD;
        }
      } else {
        for (String v : md.getAll(Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER))) {
          size += name.length() + v.length() + FIELD_OVERHEAD;
        }
      }
    }
    return size;
  }
}
