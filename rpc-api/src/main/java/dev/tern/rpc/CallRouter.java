package dev.tern.rpc;

import io.grpc.CallOptions;
import io.grpc.LoadBalancer;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;

/** Finds a ready transport for a call: the channel's load balancer, or one subchannel's connection. */
interface CallRouter {
  /**
   * Hands {@code waiter} a transport now or once one is ready, or fails it.
   *
   * @param args what the load balancer's picker sees of the call
   * @param waitForReady whether the call waits through connection failures
   * @param earlyData whether the call may go before the handshake is done (0-RTT)
   */
  void obtain(ConnectionManager.Waiter waiter, LoadBalancer.PickSubchannelArgs args, boolean waitForReady,
      boolean earlyData);

  /** The call ended (whether or not it got a transport). */
  void cancelWait(ConnectionManager.Waiter waiter);

  /** What a picker sees of a call, as grpc-java gives it. */
  final class PickArgs extends LoadBalancer.PickSubchannelArgs {
    private final MethodDescriptor<?, ?> method;
    private final Metadata headers;
    private final CallOptions callOptions;

    PickArgs(MethodDescriptor<?, ?> method, Metadata headers, CallOptions callOptions) {
      this.method = method;
      this.headers = headers;
      this.callOptions = callOptions;
    }

    @Override
    public CallOptions getCallOptions() {
      return callOptions;
    }

    @Override
    public Metadata getHeaders() {
      return headers;
    }

    @Override
    public MethodDescriptor<?, ?> getMethodDescriptor() {
      return method;
    }

    @Override
    public String toString() {
      return "PickArgs{" + method.getFullMethodName() + '}';
    }
  }
}
