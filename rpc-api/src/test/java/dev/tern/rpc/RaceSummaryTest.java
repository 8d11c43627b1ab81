package dev.tern.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import java.io.IOException;
import java.net.ConnectException;
import org.junit.jupiter.api.Test;

/**
 * A race's summary status can carry one cause object, so each attempt's text keeps its own root
 * cause (the end-to-end case, QUIC and TCP both failing, is in rpc-transport-quic).
 */
class RaceSummaryTest {
  @Test
  void anAttemptsRootCauseIsInItsTextWhenTheDescriptionLacksIt() {
    Status s = Status.UNAVAILABLE.withDescription("io exception")
        .withCause(new IOException("wrapped", new ConnectException("Connection refused: /127.0.0.1:1")));
    assertThat(TransportRace.describe(s))
        .isEqualTo("UNAVAILABLE: io exception (ConnectException: Connection refused: /127.0.0.1:1)");
  }

  @Test
  void aCauseTheDescriptionAlreadyNamesIsNotRepeated() {
    Status s = Status.UNAVAILABLE.withDescription("refused: Connection refused")
        .withCause(new ConnectException("Connection refused"));
    assertThat(TransportRace.describe(s)).isEqualTo("UNAVAILABLE: refused: Connection refused");
  }
}
