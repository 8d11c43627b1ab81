package dev.tern.rpc;

import io.grpc.KnownLength;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;

/** Turns a marshaller's stream into the message's bytes. */
final class Marshalling {
  private Marshalling() {}

  /**
   * The stream's bytes. Streams that know their length (protobuf's do) are read straight into an
   * array of that size, which lets protobuf serialise into it without an intermediate buffer.
   */
  static byte[] toBytes(InputStream in) throws IOException {
    if (in instanceof KnownLength) {
      int n = in.available();
      byte[] out = new byte[n];
      int off = 0;
      while (off < n) {
        int r = in.read(out, off, n - off);
        if (r < 0) {
          break;
        }
        off += r;
      }
      int next = in.read();
      if (off == n && next < 0) {
        return out;
      }
      // The length was a lower bound: keep what was read and append the rest.
      ByteArrayOutputStream all = new ByteArrayOutputStream(off + 64);
      all.write(out, 0, off);
      if (next >= 0) {
        all.write(next);
        all.write(readRest(in));
      }
      return all.toByteArray();
    }
    return readRest(in);
  }

  /** The rest of {@code in} (InputStream.readAllBytes is Java 9, not on Android 8). */
  static byte[] readRest(InputStream in) throws IOException {
    ByteArrayOutputStream rest = new ByteArrayOutputStream();
    byte[] chunk = new byte[8192];
    for (int n; (n = in.read(chunk, 0, chunk.length)) != -1; ) {
      rest.write(chunk, 0, n);
    }
    return rest.toByteArray();
  }
}
