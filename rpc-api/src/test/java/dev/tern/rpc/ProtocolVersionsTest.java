package dev.tern.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import org.junit.jupiter.api.Test;

class ProtocolVersionsTest {
  @Test
  void highestCommonVersionWins() {
    assertThat(ProtocolVersions.highestCommon(new int[] {1}, new int[] {2, 1})).hasValue(1);
    assertThat(ProtocolVersions.highestCommon(new int[] {3, 2}, new int[] {2, 1})).hasValue(2);
    assertThat(ProtocolVersions.highestCommon(new int[] {1, 5, 3}, new int[] {3, 5})).hasValue(5);
    assertThat(ProtocolVersions.highestCommon(new int[] {3}, new int[] {2, 1})).isEmpty();
  }

  @Test
  void noCommonVersionNamesBothLists() {
    Status s = ProtocolVersions.noCommonVersion(new int[] {3}, new int[] {2, 1});
    assertThat(s.getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
    assertThat(s.getDescription()).contains("client speaks [3]").contains("server speaks [2,1]");
  }

  @Test
  void headerFormRoundTripsHighestFirst() {
    assertThat(ProtocolVersions.format(ProtocolVersions.parse(" 1, 3 ,2"))).isEqualTo("3,2,1");
  }

  @Test
  void badListsAreRejectedNamingTheValue() {
    assertThatThrownBy(() -> ProtocolVersions.parse("2,x")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'2,x'");
    assertThatThrownBy(() -> ProtocolVersions.parse("")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ProtocolVersions.validate(1, 0)).hasMessageContaining("got 0");
    assertThatThrownBy(ProtocolVersions::validate).hasMessageContaining("must not be empty");
  }
}
