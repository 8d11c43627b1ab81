package dev.tern.samples.mobile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.conformance.TestCertificates;
import dev.tern.netlab.emu.NetlabEmulator;
import dev.tern.netlab.link.LinkProfile;
import dev.tern.transport.udp.rpc.UdpTransportOptions;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The feed server in netlab's server namespace, and the command that runs the shrunk sample client
 * in its client namespace against it: what the ITs on emulated links share. Needs root.
 */
final class FeedLab implements AutoCloseable {
  final NetlabEmulator emu;
  final int port;
  private final Path cert;
  private final byte[] udpKey;
  private final Process server;

  private FeedLab(NetlabEmulator emu, int port, Path cert, byte[] udpKey, Process server) {
    this.emu = emu;
    this.port = port;
    this.cert = cert;
    this.udpKey = udpKey;
    this.server = server;
  }

  /**
   * Starts the emulator on {@code profile} ({@code blockUdp}: every UDP packet dropped; a packet log
   * when {@code packetLog} is not null) and the feed server, with a certificate and keys written
   * to {@code dir}, and waits for the server to listen on {@code port}.
   */
  static FeedLab start(LinkProfile profile, boolean blockUdp, Path packetLog, Path dir, int port) throws Exception {
    Files.createDirectories(dir);
    TestCertificates certs = TestCertificates.generate();
    Path cert = Files.write(dir.resolve("cert.pem"), certs.certificatePem());
    Path key = Files.write(dir.resolve("key.pem"), certs.privateKeyPem());
    byte[] udpKey = UdpTransportOptions.newServerKey();
    Path udpKeyFile = Files.write(dir.resolve("udp.key"), udpKey);
    NetlabEmulator.Builder b = NetlabEmulator.builder().profile(profile).seed(1).blockUdp(blockUdp);
    if (packetLog != null) {
      b.packetLog(packetLog);
    }
    NetlabEmulator emu = b.start();
    Process server = null;
    try {
      server = emu.serverProcess(NetlabEmulator.javaCommand(System.getProperty("java.class.path"),
          FeedServer.class.getName(), Integer.toString(port), cert.toString(), key.toString(),
          udpKeyFile.toString(), emu.serverAddress())).redirectErrorStream(true).start();
      BufferedReader out = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
      String line;
      while ((line = out.readLine()) != null && !line.startsWith("feed server on")) {
        // the JVM's own lines, if any
      }
      assertThat(line).as("the feed server's start").isNotNull();
      return new FeedLab(emu, port, cert, udpKey, server);
    } catch (Exception | AssertionError e) {
      if (server != null) {
        server.destroy();
      }
      emu.close();
      throw e;
    }
  }

  /** The server's udp pin, base64. */
  String pin() {
    return Base64.getEncoder().encodeToString(UdpTransportOptions.publicKeyOf(udpKey));
  }

  /** The shrunk client in the client namespace, on BouncyCastle, with {@code args} after the pin. */
  ProcessBuilder client(String... args) {
    List<String> cmd = new ArrayList<>(Arrays.asList(
        Paths.get(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
        System.getProperty("tern.shrunk.jar"), emu.serverAddress(), Integer.toString(port), cert.toString(),
        pin(), "--crypto", "bc",
        "--authority", "localhost"));
    cmd.addAll(Arrays.asList(args));
    return emu.clientProcess(cmd).redirectErrorStream(true);
  }

  @Override
  public void close() throws IOException, InterruptedException {
    try {
      server.destroy();
      server.waitFor(10, TimeUnit.SECONDS);
    } finally {
      emu.close();
    }
  }
}
