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
 * Compiles the test {@code .proto} files into messages and stubs and adds both folders to the
 * test compile roots. The main proto folder is on the include path, so test protos may import
 * main ones (their classes come from the main output).
 */
@Mojo(name = "test-generate", defaultPhase = LifecyclePhase.GENERATE_TEST_SOURCES,
    requiresDependencyResolution = ResolutionScope.TEST, threadSafe = true)
public class TestGenerateMojo extends AbstractGenerateMojo {
  /** Folders holding the test {@code .proto} files to compile. */
  @Parameter(defaultValue = "${project.basedir}/src/test/proto")
  private List<File> protoTestSourceRoots;

  /** Where test message sources go. */
  @Parameter(defaultValue = "${project.build.directory}/generated-test-sources/tern/java")
  private File javaTestOutputDirectory;

  /** Where test stub sources go. */
  @Parameter(defaultValue = "${project.build.directory}/generated-test-sources/tern/grpc")
  private File grpcTestOutputDirectory;

  /** The main proto folder, importable from test protos. */
  @Parameter(defaultValue = "${project.basedir}/src/main/proto")
  private File mainProtoSourceRoot;

  /** Creates the mojo (Maven instantiates it). */
  public TestGenerateMojo() {}

  @Override
  protected List<File> sourceRoots() {
    return protoTestSourceRoots;
  }

  @Override
  protected File javaOutput() {
    return javaTestOutputDirectory;
  }

  @Override
  protected File grpcOutput() {
    return grpcTestOutputDirectory;
  }

  @Override
  protected String scope() {
    return "test";
  }

  @Override
  protected void addSourceRoot(File dir) {
    project.addTestCompileSourceRoot(dir.getAbsolutePath());
  }

  @Override
  protected List<Path> dependencyFiles() {
    return artifactFiles(Set.of("compile", "provided", "system", "test", "runtime"));
  }

  @Override
  protected List<Path> ownClasses() {
    return List.of(Path.of(project.getBuild().getOutputDirectory()));
  }

  @Override
  public void execute() throws org.apache.maven.plugin.MojoExecutionException,
      org.apache.maven.plugin.MojoFailureException {
    if (mainProtoSourceRoot != null && mainProtoSourceRoot.isDirectory()
        && !includeDirectories.contains(mainProtoSourceRoot)) {
      includeDirectories.add(mainProtoSourceRoot);
    }
    super.execute();
  }
}
