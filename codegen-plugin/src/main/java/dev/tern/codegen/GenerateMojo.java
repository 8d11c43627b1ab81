package dev.tern.codegen;

import java.io.File;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;
import org.apache.maven.plugins.annotations.Parameter;
import org.apache.maven.plugins.annotations.ResolutionScope;

/**
 * Compiles the main {@code .proto} files into messages (protoc) and gRPC-style stubs (Tern's
 * generator) and adds both folders to the main compile roots.
 */
@Mojo(name = "generate", defaultPhase = LifecyclePhase.GENERATE_SOURCES,
    requiresDependencyResolution = ResolutionScope.COMPILE, threadSafe = true)
public class GenerateMojo extends AbstractGenerateMojo {
  /** Folders holding the {@code .proto} files to compile. */
  @Parameter(defaultValue = "${project.basedir}/src/main/proto")
  private List<File> protoSourceRoots;

  /** Where message sources go. */
  @Parameter(defaultValue = "${project.build.directory}/generated-sources/tern/java")
  private File javaOutputDirectory;

  /** Where stub sources go. */
  @Parameter(defaultValue = "${project.build.directory}/generated-sources/tern/grpc")
  private File grpcOutputDirectory;

  /** Creates the mojo (Maven instantiates it). */
  public GenerateMojo() {}

  @Override
  protected List<File> sourceRoots() {
    return protoSourceRoots;
  }

  @Override
  protected File javaOutput() {
    return javaOutputDirectory;
  }

  @Override
  protected File grpcOutput() {
    return grpcOutputDirectory;
  }

  @Override
  protected String scope() {
    return "main";
  }

  @Override
  protected void addSourceRoot(File dir) {
    project.addCompileSourceRoot(dir.getAbsolutePath());
  }

  @Override
  protected List<Path> dependencyFiles() {
    return artifactFiles(Set.of("compile", "provided", "system"));
  }
}
