package dev.tern.grpcinterop;

import org.junit.ClassRule;
import org.junit.rules.Timeout;

/** grpc-java's interop cases over Tern's TCP transport with TLS (a certificate for localhost). */
public class TcpTlsInteropTest extends TlsTernInteropTest {
  /** Every case of the class together; each case also has the base class's own 90 s limit. */
  @ClassRule public static final Timeout CLASS_TIMEOUT = Timeout.seconds(300);

  @Override
  protected String transport() {
    return "tcp";
  }
}
