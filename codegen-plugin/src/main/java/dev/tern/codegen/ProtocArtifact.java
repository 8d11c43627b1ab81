package dev.tern.codegen;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.apache.maven.plugin.MojoExecutionException;
import org.eclipse.aether.RepositorySystem;
import org.eclipse.aether.RepositorySystemSession;
import org.eclipse.aether.artifact.DefaultArtifact;
import org.eclipse.aether.repository.RemoteRepository;
import org.eclipse.aether.resolution.ArtifactRequest;
import org.eclipse.aether.resolution.ArtifactResolutionException;

/**
 * Finds the {@code protoc} executable as the Maven artifact
 * {@code com.google.protobuf:protoc:<version>:exe:<os>-<arch>}, through Maven's own resolver, so
 * it lands in (and is later read from) the local repository; no PATH lookup, no other download.
 */
final class ProtocArtifact {
  private ProtocArtifact() {}

  /**
   * The protoc classifier for an {@code os.name} and {@code os.arch}: {@code linux}, {@code osx}
   * or {@code windows}, then {@code x86_64} or {@code aarch_64}.
   *
   * @throws IllegalArgumentException naming the value when there is no protoc for it
   */
  static String classifier(String osName, String osArch) {
    String os = osName.toLowerCase(Locale.ROOT);
    String family;
    if (os.startsWith("linux")) {
      family = "linux";
    } else if (os.startsWith("mac") || os.startsWith("osx") || os.startsWith("darwin")) {
      family = "osx";
    } else if (os.startsWith("windows")) {
      family = "windows";
    } else {
      throw new IllegalArgumentException("os.name " + osName + " has no protoc build;"
          + " set protocClassifier explicitly");
    }
    String arch = osArch.toLowerCase(Locale.ROOT);
    String cpu;
    switch (arch) {
      case "amd64", "x86_64", "x86-64", "x64" -> cpu = "x86_64";
      case "aarch64", "arm64", "aarch_64" -> cpu = "aarch_64";
      default -> throw new IllegalArgumentException("os.arch " + osArch
          + " has no protoc build; set protocClassifier explicitly");
    }
    return family + "-" + cpu;
  }

  /**
   * Resolves protoc and makes it executable.
   *
   * @throws MojoExecutionException if it cannot be resolved (offline and not cached, or an
   *     unknown version) or made executable
   */
  static Path resolve(RepositorySystem system, RepositorySystemSession session,
      List<RemoteRepository> repositories, String version, String classifier)
      throws MojoExecutionException {
    DefaultArtifact artifact =
        new DefaultArtifact("com.google.protobuf", "protoc", classifier, "exe", version);
    File file;
    try {
      file = system.resolveArtifact(session, new ArtifactRequest(artifact, repositories, null))
          .getArtifact().getFile();
    } catch (ArtifactResolutionException e) {
      throw new MojoExecutionException("Cannot resolve protoc " + artifact
          + (session.isOffline() ? " (offline: run once online to cache it)" : "")
          + ": " + e.getMessage(), e);
    }
    Path path = file.toPath();
    if (!Files.isExecutable(path) && !file.setExecutable(true)) {
      throw new MojoExecutionException("Cannot make protoc executable: " + path);
    }
    return path;
  }
}
