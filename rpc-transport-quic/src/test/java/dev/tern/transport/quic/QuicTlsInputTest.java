package dev.tern.transport.quic;

import dev.tern.conformance.AbstractTlsInputTest;

/** Every TLS input kind over QUIC. */
class QuicTlsInputTest extends AbstractTlsInputTest {
  @Override
  protected String transport() {
    return "quic";
  }
}
