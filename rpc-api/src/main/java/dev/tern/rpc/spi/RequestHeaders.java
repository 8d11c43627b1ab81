package dev.tern.rpc.spi;

import dev.tern.rpc.Priority;
import io.grpc.Deadline;
import io.grpc.Metadata;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
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
        ? Collections.unmodifiableList(Arrays.asList("gzip", "identity"))
        : Collections.unmodifiableList(new ArrayList<>(b.acceptedMessageEncodings));
    this.priority = b.priority == null ? Priority.DEFAULT : b.priority;
    this.earlyDataAllowed = b.earlyDataAllowed;
    this.idempotent = b.idempotent;
  }

  /**
   * A builder for a call to {@code fullMethodName}; everything else starts unset (no authority, no
   * deadline, empty metadata, identity encoding, default priority, no early data).
   *
   * @param fullMethodName the method, as {@code package.Service/Method}; not null
   * @return a new builder
   * @throws NullPointerException if {@code fullMethodName} is null
   */
  public static Builder builder(String fullMethodName) {
    return new Builder(fullMethodName);
  }

  /**
   * The method called.
   *
   * @return the full method name, {@code package.Service/Method}; never null
   */
  public String fullMethodName() { return fullMethodName; }

  /**
   * The call's authority.
   *
   * @return {@code host[:port]}, or null when the transport has none to give
   */
  public String authority() { return authority; }

  /**
   * The application's headers (ASCII and binary keys); the transport's own headers are not here.
   *
   * @return the metadata, never null (empty if none was set); shared, not a copy
   */
  public Metadata metadata() { return metadata; }

  /**
   * The call's deadline.
   *
   * @return the deadline, or null if the call has none
   */
  public Deadline deadline() { return deadline; }

  /**
   * The encoding of request messages on the wire.
   *
   * @return the encoding's name, such as {@code "identity"} (the default) or {@code "gzip"}
   */
  public String messageEncoding() { return messageEncoding; }

  /**
   * The encodings the client accepts for responses.
   *
   * @return an unmodifiable list of encoding names, in the client's order of preference;
   *     {@code ["gzip", "identity"]} unless set
   */
  public List<String> acceptedMessageEncodings() { return acceptedMessageEncodings; }

  /**
   * The call's priority; transports without priorities ignore it.
   *
   * @return the priority, never null ({@link Priority#DEFAULT} unless set)
   */
  public Priority priority() { return priority; }

  /**
   * Whether this call may be sent as 0-RTT early data, which an attacker can replay; only safe
   * for idempotent calls.
   *
   * @return true if the caller allowed early data for this call
   */
  public boolean earlyDataAllowed() { return earlyDataAllowed; }

  /**
   * Whether the method is idempotent, as its method descriptor says.
   *
   * @return true if calling the method twice has the same effect as calling it once
   */
  public boolean idempotent() { return idempotent; }

  /**
   * A builder holding this object's values, to derive headers that differ in one or two.
   *
   * @return a new builder; changing it leaves this object as it is
   */
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

    /**
     * Sets the authority.
     *
     * @param v {@code host[:port]}, or null for none
     * @return this builder
     */
    public Builder authority(String v) { this.authority = v; return this; }
    /**
     * Sets the application metadata; it is kept, not copied.
     *
     * @param v the metadata, or null for none (empty metadata)
     * @return this builder
     */
    public Builder metadata(Metadata v) { this.metadata = v; return this; }
    /**
     * Sets the deadline.
     *
     * @param v the deadline, or null for none
     * @return this builder
     */
    public Builder deadline(Deadline v) { this.deadline = v; return this; }
    /**
     * Sets the request messages' encoding.
     *
     * @param v the encoding's name ({@code "gzip"}, say), or null for {@code "identity"}
     * @return this builder
     */
    public Builder messageEncoding(String v) { this.messageEncoding = v; return this; }
    /**
     * Sets the encodings accepted for responses; {@link #build()} copies the list.
     *
     * @param v encoding names in order of preference, none null; or null for
     *     {@code ["gzip", "identity"]}
     * @return this builder
     */
    public Builder acceptedMessageEncodings(List<String> v) { this.acceptedMessageEncodings = v; return this; }
    /**
     * Sets the priority.
     *
     * @param v the priority, or null for {@link Priority#DEFAULT}
     * @return this builder
     */
    public Builder priority(Priority v) { this.priority = v; return this; }
    /**
     * Sets whether the call may go as 0-RTT early data.
     *
     * @param v true to allow early data (default false)
     * @return this builder
     */
    public Builder earlyDataAllowed(boolean v) { this.earlyDataAllowed = v; return this; }
    /**
     * Sets whether the method is idempotent.
     *
     * @param v true if the method is idempotent (default false)
     * @return this builder
     */
    public Builder idempotent(boolean v) { this.idempotent = v; return this; }

    /**
     * Builds the headers; the builder may be used again afterwards.
     *
     * @return new headers holding the values set so far
     * @throws NullPointerException if the accepted encodings contain null
     */
    public RequestHeaders build() {
      return new RequestHeaders(this);
    }
  }
}
