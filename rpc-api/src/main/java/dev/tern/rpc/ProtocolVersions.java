package dev.tern.rpc;

import io.grpc.Metadata;
import io.grpc.Status;
import java.util.Arrays;
import java.util.OptionalInt;

/**
 * The Tern protocol-version handshake: each side states the versions of the call-layer protocol it
 * speaks, and the highest version both speak is used. With none in common the call fails with a
 * {@link Status#FAILED_PRECONDITION} that names both sides' lists.
 *
 * <p>Transports with a handshake of their own carry the lists in it ({@code IN_TRANSPORT}). On the
 * others ({@code PER_CALL_HEADER}, gRPC over HTTP/2) the client sends {@value #REQUEST_HEADER} with
 * its list ({@code tern-protocol: 2,1}), the server answers {@value #SELECTED_HEADER} in the
 * response headers, or closes the call with FAILED_PRECONDITION and its own list in the trailer
 * {@value #SUPPORTED_TRAILER}. A client that sends no header (a stock gRPC client) speaks
 * {@link #BASE_VERSION}.
 */
public final class ProtocolVersions {
  /** The version of a peer that states none: the first Tern protocol, which stock gRPC speaks. */
  public static final int BASE_VERSION = 1;
  /** The versions this build of Tern speaks, highest first. */
  public static final int[] SUPPORTED = {1};
  /** Request header carrying the client's versions, highest first, comma-separated. */
  public static final String REQUEST_HEADER = "tern-protocol";
  /** Response header carrying the version the server chose. */
  public static final String SELECTED_HEADER = "tern-protocol-selected";
  /** Trailer carrying the server's versions when none was in common. */
  public static final String SUPPORTED_TRAILER = "tern-protocol-supported";

  /** {@value #REQUEST_HEADER} as a metadata key. */
  public static final Metadata.Key<String> REQUEST_KEY =
      Metadata.Key.of(REQUEST_HEADER, Metadata.ASCII_STRING_MARSHALLER);
  /** {@value #SELECTED_HEADER} as a metadata key. */
  public static final Metadata.Key<String> SELECTED_KEY =
      Metadata.Key.of(SELECTED_HEADER, Metadata.ASCII_STRING_MARSHALLER);
  /** {@value #SUPPORTED_TRAILER} as a metadata key. */
  public static final Metadata.Key<String> SUPPORTED_KEY =
      Metadata.Key.of(SUPPORTED_TRAILER, Metadata.ASCII_STRING_MARSHALLER);

  private ProtocolVersions() {}

  /**
   * The highest version in both lists; neither list need be sorted.
   *
   * @param ours the versions this side speaks
   * @param theirs the versions the peer speaks
   * @return the highest version in both, or empty when they share none
   */
  public static OptionalInt highestCommon(int[] ours, int[] theirs) {
    int best = -1;
    for (int a : ours) {
      for (int b : theirs) {
        if (a == b && a > best) {
          best = a;
        }
      }
    }
    return best < 0 ? OptionalInt.empty() : OptionalInt.of(best);
  }

  /**
   * The FAILED_PRECONDITION status for two lists with no version in common.
   *
   * @param client the versions the client speaks
   * @param server the versions the server speaks
   * @return a status whose description names both lists
   */
  public static Status noCommonVersion(int[] client, int[] server) {
    return Status.FAILED_PRECONDITION.withDescription("no Tern protocol version in common: client speaks ["
        + format(client) + "], server speaks [" + format(server) + "]");
  }

  /**
   * Checks a version list: non-empty, every version positive.
   *
   * @param versions the versions, in any order; not changed
   * @return a sorted copy, highest first
   * @throws IllegalArgumentException naming the bad value, if the list is null, empty or holds a
   *     version below 1
   */
  public static int[] validate(int... versions) {
    if (versions == null || versions.length == 0) {
      throw new IllegalArgumentException("protocol versions must not be empty");
    }
    for (int v : versions) {
      if (v <= 0) {
        throw new IllegalArgumentException("protocol versions must be > 0, got " + v + " in "
            + Arrays.toString(versions));
      }
    }
    int[] sorted = versions.clone();
    Arrays.sort(sorted);
    for (int i = 0, j = sorted.length - 1; i < j; i++, j--) {
      int t = sorted[i];
      sorted[i] = sorted[j];
      sorted[j] = t;
    }
    return sorted;
  }

  /**
   * The header form of a list: {@code 2,1}.
   *
   * @param versions the versions, highest first (the order is kept as given)
   * @return the versions joined by commas, no blanks; empty for an empty list
   */
  public static String format(int[] versions) {
    StringBuilder sb = new StringBuilder();
    for (int v : versions) {
      if (sb.length() > 0) {
        sb.append(',');
      }
      sb.append(v);
    }
    return sb.toString();
  }

  /**
   * Parses the header form ({@code 2,1}; blanks allowed).
   *
   * @param header the header's value, as received
   * @return the versions, highest first
   * @throws IllegalArgumentException naming the header value when it is null, blank or not a list
   *     of positive integers
   */
  public static int[] parse(String header) {
    if (header == null || header.trim().isEmpty()) {
      throw new IllegalArgumentException(REQUEST_HEADER + " must list at least one version, was '"
          + header + "'");
    }
    String[] parts = header.split(",");
    int[] out = new int[parts.length];
    for (int i = 0; i < parts.length; i++) {
      try {
        out[i] = Integer.parseInt(parts[i].trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("bad Tern protocol version list '" + header + "'", e);
      }
    }
    return validate(out);
  }
}
