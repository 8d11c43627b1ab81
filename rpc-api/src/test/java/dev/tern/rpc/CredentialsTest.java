package dev.tern.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.CallCredentials;
import io.grpc.CompositeChannelCredentials;
import io.grpc.InsecureChannelCredentials;
import io.grpc.InsecureServerCredentials;
import io.grpc.Metadata;
import io.grpc.TlsChannelCredentials;
import io.grpc.TlsServerCredentials;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;

/** grpc-java credentials Tern cannot honour are refused at once, naming what is unsupported. */
class CredentialsTest {
  private static final byte[] NOT_A_KEY = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"
      .getBytes(StandardCharsets.US_ASCII);

  @Test
  void insecureCredentialsMeanPlaintext() {
    assertThat(Credentials.client(InsecureChannelCredentials.create())).isNull();
    assertThat(Credentials.server(InsecureServerCredentials.create())).isNull();
  }

  @Test
  void anEncryptedKeyIsRefusedWithTheCommandThatDecryptsIt() throws Exception {
    TlsServerCredentials creds = (TlsServerCredentials) TlsServerCredentials.newBuilder()
        .keyManager(new ByteArrayInputStream(NOT_A_KEY), new ByteArrayInputStream(NOT_A_KEY), "secret").build();
    assertThatThrownBy(() -> Credentials.server(creds)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("encrypted private keys").hasMessageContaining("openssl pkcs8 -topk8 -nocrypt");
  }

  @Test
  void optionalClientAuthIsRefusedNamingTheChoicesThatWork() {
    TlsServerCredentials creds = (TlsServerCredentials) TlsServerCredentials.newBuilder()
        .keyManager(new DummyKeyManager())
        .clientAuth(TlsServerCredentials.ClientAuth.OPTIONAL).build();
    assertThatThrownBy(() -> Credentials.server(creds)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("OPTIONAL").hasMessageContaining("not supported by Tern yet")
        .hasMessageContaining("ClientAuth.REQUIRE");
  }

  @Test
  void callCredentialsAreRefusedPointingToInterceptors() {
    CallCredentials call = new CallCredentials() {
      @Override
      public void applyRequestMetadata(RequestInfo info, Executor executor, MetadataApplier applier) {
        applier.apply(new Metadata());
      }
    };
    assertThatThrownBy(() -> TernChannelBuilder.forTarget("localhost:1",
        CompositeChannelCredentials.create(TlsChannelCredentials.create(), call)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("CompositeChannelCredentials").hasMessageContaining("ClientInterceptor");
  }

  /** A key manager that is never asked for a key: these tests fail before any handshake. */
  private static final class DummyKeyManager extends javax.net.ssl.X509ExtendedKeyManager {
    @Override public String[] getClientAliases(String keyType, java.security.Principal[] issuers) { return null; }
    @Override public String chooseClientAlias(String[] keyType, java.security.Principal[] issuers, java.net.Socket s) { return null; }
    @Override public String[] getServerAliases(String keyType, java.security.Principal[] issuers) { return null; }
    @Override public String chooseServerAlias(String keyType, java.security.Principal[] issuers, java.net.Socket s) { return null; }
    @Override public java.security.cert.X509Certificate[] getCertificateChain(String alias) { return null; }
    @Override public java.security.PrivateKey getPrivateKey(String alias) { return null; }
  }
}
