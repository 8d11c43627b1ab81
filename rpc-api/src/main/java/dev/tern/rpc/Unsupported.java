package dev.tern.rpc;

/** The exceptions Tern's builders throw for grpc-java builder methods Tern does not implement. */
final class Unsupported {
  private Unsupported() {}

  /**
   * An {@link UnsupportedOperationException} naming Tern, {@code builder.signature} and what to do
   * instead ({@code instead} null: it is not supported yet, with no alternative).
   */
  static UnsupportedOperationException method(String builder, String signature, String instead) {
    return new UnsupportedOperationException("Tern's " + builder + "." + signature + " is not supported yet"
        + (instead == null ? "" : "; " + instead));
  }
}
