package dev.tern.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.InsecureServerCredentials;
import io.grpc.ManagedChannelBuilder;
import io.grpc.ManagedChannelRegistry;
import io.grpc.ServerBuilder;
import io.grpc.TlsChannelCredentials;
import org.junit.jupiter.api.Test;

/**
 * With no other grpc-java transport on the class path (as here), grpc-java's own entry points
 * build Tern channels and servers through Tern's registered providers.
 */
class GrpcEntryPointsTest {
  @Test
  void grpcJavasEntryPointsPickTernWhenItIsTheOnlyTransport() {
    assertThat(Grpc.newChannelBuilder("localhost:8443", TlsChannelCredentials.create()))
        .isInstanceOf(TernChannelBuilder.class);
    assertThat(ManagedChannelBuilder.forTarget("localhost:8443")).isInstanceOf(TernChannelBuilder.class);
    assertThat(ManagedChannelBuilder.forAddress("localhost", 8443)).isInstanceOf(TernChannelBuilder.class);
    assertThat(Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create()))
        .isInstanceOf(TernServerBuilder.class);
    assertThat(ServerBuilder.forPort(0)).isInstanceOf(TernServerBuilder.class);
  }

  @Test
  void aTargetTernCannotUseFailsNamingIt() {
    assertThatThrownBy(() -> Grpc.newChannelBuilder("a:1,b:2", InsecureChannelCredentials.create()))
        .isInstanceOf(ManagedChannelRegistry.ProviderNotFoundException.class)
        .hasMessageContaining("TernChannelProvider").hasMessageContaining("'a:1,b:2'");
  }
}
