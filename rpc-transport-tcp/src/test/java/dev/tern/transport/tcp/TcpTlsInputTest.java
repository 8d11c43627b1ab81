package dev.tern.transport.tcp;

import dev.tern.conformance.AbstractTlsInputTest;

/** Every TLS input kind over TCP. */
class TcpTlsInputTest extends AbstractTlsInputTest {
  @Override
  protected String transport() {
    return "tcp";
  }
}
