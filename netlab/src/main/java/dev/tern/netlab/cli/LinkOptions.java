package dev.tern.netlab.cli;

import dev.tern.netlab.link.CustomLinks;
import dev.tern.netlab.link.LinkProfile;
import dev.tern.netlab.link.RandomLinks;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The command-line options that describe a link of the user's own, shared by every command that
 * takes a link (a picocli mixin): {@code --link SPEC}, {@code --link-file FILE} and
 * {@code --random-link} (drawn with the command's {@code --seed}). See {@link CustomLinks} for the
 * spec and {@link RandomLinks} for the ranges.
 */
public final class LinkOptions {
  @Option(names = "--link", paramLabel = "SPEC",
      description = "a link of your own, e.g. 'down=1.1mbit,up=0.5mbit,rtt=200ms,loss=0.6%%,burst=6,jitter=50ms,"
          + "reorder=0.2%%,queue=64kb' or 'trace:down=FILE,up=FILE,rtt=70ms'; keys: " + CustomLinks.KEYS)
  List<String> specs = new ArrayList<>();

  @Option(names = "--link-file", paramLabel = "FILE",
      description = "a link of your own from a file of key=value lines (the --link keys; traces as down-trace=, up-trace=)")
  List<Path> files = new ArrayList<>();

  @Option(names = "--random-link",
      description = "a link drawn with --seed from stated ranges (printed before the run; same seed, same link)")
  boolean random;

  /** Whether any of the options was given. */
  public boolean given() {
    return !specs.isEmpty() || !files.isEmpty() || random;
  }

  /** Whether {@code --random-link} was given. */
  public boolean random() {
    return random;
  }

  /**
   * The links given, in the order {@code --link}, {@code --link-file}, {@code --random-link}.
   *
   * @param seed the seed of a random link
   * @throws IllegalArgumentException naming the option, the key, the value and the accepted forms
   */
  public List<LinkProfile> profiles(long seed) {
    List<LinkProfile> out = new ArrayList<>();
    for (String s : specs) {
      try {
        out.add(CustomLinks.parse(s));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("--link: " + e.getMessage(), e);
      }
    }
    for (Path f : files) {
      try {
        out.add(CustomLinks.load(f));
      } catch (IllegalArgumentException | java.io.UncheckedIOException e) {
        throw new IllegalArgumentException("--link-file: " + e.getMessage(), e);
      }
    }
    if (random) {
      out.add(RandomLinks.draw(seed));
    }
    return out;
  }
}
