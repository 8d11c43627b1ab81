package dev.tern.rpc.spi;

import dev.tern.rpc.Priority;
import io.grpc.Deadline;
import io.grpc.Metadata;
import java.util.List;
import java.util.Objects;

/**
 * The head of one call: what the client states before its first message.
 *
 * <p>{@code metadata} holds the application's headers only; transports put method, authority,
 * deadline and encodings on the wire in their own way (gRPC over HTTP/2: {@code :path}, {@code
 * :authority}, {@code grpc-timeout}, {@code grpc-encoding}) and recreate this object on the server.
 */
public final class RequestHeaders {
  private final String fullMethodName;
  private final String authority;
  private final Metadata metadata;
  private final Deadline deadline;
  private final String messageEncoding;
  private final List<String> acceptedMessageEncodings;
  private final Priority priority;
  private final boolean earlyDataAllowed;
  private final boolean idempotent;

  private RequestHeaders(Builder b) {
    this.fullMethodName = Objects.requireNonNull(b.fullMethodName, "fullMethodName");
    this.authority = b.authority;
    this.metadata = b.metadata == null ? new Metadata() : b.metadata;
    this.deadline = b.deadline;
    this.messageEncoding = b.messageEncoding == null ? "identity" : b.messageEncoding;
    this.acceptedMessageEncodings = b.acceptedMessageEncodings == null
        ? List.of("gzip", "identity") : List.copyOf(b.acceptedMessageEncodings);
    this.priority = b.priority == null ? Priority.DEFAULT : b.priority;
    this.earlyDataAllowed = b.earlyDataAllowed;
    this.idempotent = b.idempotent;
  }

  /** A builder for a call to {@code fullMethodName} ({@code package.Service/Method}). */
  public static Builder builder(String fullMethodName) {
    return new Builder(fullMethodName);
  }

  /** {@code package.Service/Method}. */
  public String fullMethodName() { return fullMethodName; }

  /** The call's authority (host[:port]); null when the transport has none to give. */
  public String authority() { return authority; }

  /** Application metadata (ASCII and binary keys), never null. */
  public Metadata metadata() { return metadata; }

  /** The call's deadline, or null for none. */
  public Deadline deadline() { return deadline; }

  /** The encoding of request messages on the wire: {@code "identity"} or {@code "gzip"}. */
  public String messageEncoding() { return messageEncoding; }

  /** The encodings the client accepts for responses. */
  public List<String> acceptedMessageEncodings() { return acceptedMessageEncodings; }

  /** The call's priority; transports without priorities ignore it. */
  public Priority priority() { return priority; }

  /** Whether this call may be sent as 0-RTT early data. */
  public boolean earlyDataAllowed() { return earlyDataAllowed; }

  /** Whether the method is idempotent (its method descriptor says so). */
  public boolean idempotent() { return idempotent; }

  /** A builder holding this object's values. */
  public Builder toBuilder() {
    return new Builder(fullMethodName).authority(authority).metadata(metadata).deadline(deadline)
        .messageEncoding(messageEncoding).acceptedMessageEncodings(acceptedMessageEncodings)
        .priority(priority).earlyDataAllowed(earlyDataAllowed).idempotent(idempotent);
  }

  @Override
  public String toString() {
    return "RequestHeaders{" + fullMethodName + ", authority=" + authority + ", deadline=" + deadline
        + ", encoding=" + messageEncoding + ", priority=" + priority + ", earlyData=" + earlyDataAllowed
        + '}';
  }

  /** Builds {@link RequestHeaders}. */
  public static final class Builder {
    private final String fullMethodName;
    private String authority;
    private Metadata metadata;
    private Deadline deadline;
    private String messageEncoding;
    private List<String> acceptedMessageEncodings;
    private Priority priority;
    private boolean earlyDataAllowed;
    private boolean idempotent;

    private Builder(String fullMethodName) {
      this.fullMethodName = Objects.requireNonNull(fullMethodName, "fullMethodName");
    }

    /** Sets the authority. */
    public Builder authority(String v) { this.authority = v; return this; }
    /** Sets the application metadata. */
    public Builder metadata(Metadata v) { this.metadata = v; return this; }
    /** Sets the deadline (null: none). */
    public Builder deadline(Deadline v) { this.deadline = v; return this; }
    /** Sets the request messages' encoding. */
    public Builder messageEncoding(String v) { this.messageEncoding = v; return this; }
    /** Sets the encodings accepted for responses. */
    public Builder acceptedMessageEncodings(List<String> v) { this.acceptedMessageEncodings = v; return this; }
    /** Sets the priority. */
    public Builder priority(Priority v) { this.priority = v; return this; }
    /** Sets whether the call may go as 0-RTT early data. */
    public Builder earlyDataAllowed(boolean v) { this.earlyDataAllowed = v; return this; }
    /** Sets whether the method is idempotent. */
    public Builder idempotent(boolean v) { this.idempotent = v; return this; }

    /** The headers. */
    public RequestHeaders build() {
      return new RequestHeaders(this);
    }
  }
}
