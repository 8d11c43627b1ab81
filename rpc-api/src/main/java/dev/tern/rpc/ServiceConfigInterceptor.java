package dev.tern.rpc;

import io.grpc.Attributes;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Applies the channel's service config to each call as grpc-java's channel does ({@code
 * ClientCallImpl.applyMethodConfig}); the channel installs it innermost, under the application's
 * interceptors. The method config is chosen from the holder's current value when the call is made;
 * when it starts, the call gets:
 *
 * <ul>
 *   <li>a deadline of now + {@code timeout}, if that is earlier than the call's own;
 *   <li>{@code waitForReady} from the config, which overrides the call's either way;
 *   <li>{@code maxRequestMessageBytes} and {@code maxResponseMessageBytes} as its outbound and
 *       inbound limits, or its own limits where those are smaller;
 *   <li>the config's retry or hedging policy in {@link TernCallOptions#RETRY_POLICY} or {@link
 *       TernCallOptions#HEDGING_POLICY}, for the resilience module to carry out.
 * </ul>
 *
 * <p>Without a call-policy provider (the resilience module, {@value #RESILIENCE_ENTRY_POINT}, found
 * on the class path or given to the builder), the first call that has a policy is logged once, at
 * WARNING, as having its policy ignored.
 */
final class ServiceConfigInterceptor implements ClientInterceptor {
  private static final Logger log = Logger.getLogger(ServiceConfigInterceptor.class.getName());
  /** The resilience module's entry point: when it is on the class path, it carries the policies out. */
  static final String RESILIENCE_ENTRY_POINT = "dev.tern.rpc.resilience.TernResilience";

  private final AtomicReference<ServiceConfigs> holder;
  private final String channelName;
  private final boolean resilienceOnClassPath;
  private final AtomicBoolean warned = new AtomicBoolean();

  ServiceConfigInterceptor(AtomicReference<ServiceConfigs> holder, String channelName) {
    this(holder, channelName, resilienceOnClassPath());
  }

  ServiceConfigInterceptor(AtomicReference<ServiceConfigs> holder, String channelName,
      boolean resilienceOnClassPath) {
    this.holder = holder;
    this.channelName = channelName;
    this.resilienceOnClassPath = resilienceOnClassPath;
  }

  /** Whether {@value #RESILIENCE_ENTRY_POINT} can be loaded (without initialising it). */
  static boolean resilienceOnClassPath() {
    try {
      Class.forName(RESILIENCE_ENTRY_POINT, false, ServiceConfigInterceptor.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  @Override
  public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(MethodDescriptor<ReqT, RespT> method,
      CallOptions callOptions, Channel next) {
    MethodConfig mc = holder.get().methodConfig(method);
    CallOptions options = mc == null ? callOptions : withoutTimeout(mc, callOptions);
    warnIfPolicyIgnored(method, options);
    if (mc == null || mc.timeoutNanos == null) {
      return next.newCall(method, options);
    }
    return new TimeoutFromStart<>(method, options, next, mc.timeoutNanos);
  }

  /** Everything of {@code mc} but the timeout, which counts from the call's start. */
  private static CallOptions withoutTimeout(MethodConfig mc, CallOptions o) {
    if (mc.waitForReady != null) {
      o = mc.waitForReady ? o.withWaitForReady() : o.withoutWaitForReady();
    }
    if (mc.maxResponseMessageBytes != null) {
      Integer own = o.getMaxInboundMessageSize();
      o = o.withMaxInboundMessageSize(own == null ? mc.maxResponseMessageBytes
          : Math.min(own, mc.maxResponseMessageBytes));
    }
    if (mc.maxRequestMessageBytes != null) {
      Integer own = o.getMaxOutboundMessageSize();
      o = o.withMaxOutboundMessageSize(own == null ? mc.maxRequestMessageBytes
          : Math.min(own, mc.maxRequestMessageBytes));
    }
    // CallOptions cannot unset a key: a config's policy replaces the call's value under its own key only.
    if (mc.retryPolicy != null) {
      o = o.withOption(TernCallOptions.RETRY_POLICY, mc.retryPolicy);
    }
    if (mc.hedgingPolicy != null) {
      o = o.withOption(TernCallOptions.HEDGING_POLICY, mc.hedgingPolicy);
    }
    return o;
  }

  private void warnIfPolicyIgnored(MethodDescriptor<?, ?> method, CallOptions options) {
    if (resilienceOnClassPath) {
      return;
    }
    boolean retry = options.getOption(TernCallOptions.RETRY_POLICY) != null;
    if ((retry || options.getOption(TernCallOptions.HEDGING_POLICY) != null) && warned.compareAndSet(false, true)) {
      log.log(Level.WARNING, "Channel " + channelName + ": the " + (retry ? "retry" : "hedging") + " policy of method "
          + method.getFullMethodName() + " is ignored: the resilience module, which carries out retry and hedging"
          + " policies, is not on the class path (add the dev.tern:rpc-resilience dependency, whose entry point is "
          + RESILIENCE_ENTRY_POINT + "); calls are made once. Other policies of this channel are ignored too and"
          + " not logged again.");
    }
  }

  /**
   * A call whose deadline is set when it starts, as grpc-java's: the earlier of its own and now +
   * the config's timeout. Until then it behaves as an unstarted Tern call.
   */
  private static final class TimeoutFromStart<ReqT, RespT> extends ClientCall<ReqT, RespT> {
    private final MethodDescriptor<ReqT, RespT> method;
    private final CallOptions options;
    private final Channel next;
    private final long timeoutNanos;
    private final Context context = Context.current();
    private volatile ClientCall<ReqT, RespT> delegate;

    TimeoutFromStart(MethodDescriptor<ReqT, RespT> method, CallOptions options, Channel next, long timeoutNanos) {
      this.method = method;
      this.options = options;
      this.next = next;
      this.timeoutNanos = timeoutNanos;
    }

    @Override
    public void start(Listener<RespT> listener, Metadata headers) {
      if (delegate != null) {
        throw new IllegalStateException("call already started");
      }
      Deadline fromConfig = Deadline.after(timeoutNanos, TimeUnit.NANOSECONDS);
      Deadline own = options.getDeadline();
      CallOptions o = own == null || fromConfig.isBefore(own) ? options.withDeadline(fromConfig) : options;
      Context previous = context.attach();
      try {
        // Made in the context the call was created in, which it watches for cancellation.
        delegate = next.newCall(method, o);
      } finally {
        context.detach(previous);
      }
      delegate.start(listener, headers);
    }

    private ClientCall<ReqT, RespT> started() {
      ClientCall<ReqT, RespT> d = delegate;
      if (d == null) {
        throw new IllegalStateException("call not started");
      }
      return d;
    }

    @Override
    public void request(int numMessages) {
      if (numMessages < 0) {
        throw new IllegalArgumentException("numMessages must be >= 0, was " + numMessages);
      }
      started().request(numMessages);
    }

    @Override
    public void cancel(String message, Throwable cause) {
      ClientCall<ReqT, RespT> d = delegate;
      if (d != null) {
        d.cancel(message, cause);
      }
    }

    @Override
    public void halfClose() {
      started().halfClose();
    }

    @Override
    public void sendMessage(ReqT message) {
      started().sendMessage(message);
    }

    @Override
    public boolean isReady() {
      ClientCall<ReqT, RespT> d = delegate;
      return d != null && d.isReady();
    }

    @Override
    public void setMessageCompression(boolean enabled) {
      ClientCall<ReqT, RespT> d = delegate;
      if (d != null) {
        d.setMessageCompression(enabled);
      }
    }

    @Override
    public Attributes getAttributes() {
      ClientCall<ReqT, RespT> d = delegate;
      return d == null ? Attributes.EMPTY : d.getAttributes();
    }
  }
}
