/**
 * The transport SPI: how a transport plugs into Tern.
 *
 * <p>A transport carries RPCs between a client and a server. Tern's call layer (in {@code
 * dev.tern.rpc}) does everything gRPC-specific once for every transport: marshalling, interceptors,
 * executors, {@link io.grpc.Context} and deadline propagation, status mapping. A transport only
 * moves streams.
 *
 * <h2>Writing a transport</h2>
 * <ol>
 *   <li>Implement {@link dev.tern.rpc.spi.TransportProvider} and list the class in
 *       {@code META-INF/services/dev.tern.rpc.spi.TransportProvider}. Tern finds it with
 *       {@link java.util.ServiceLoader}. A transport over UDP says so ({@link
 *       dev.tern.rpc.spi.TransportProvider#isDatagram()}), so that channels race it against TCP.
 *   <li>{@link dev.tern.rpc.spi.ClientTransport}: one connection to one server address, opening one
 *       {@link dev.tern.rpc.spi.ClientStream} per call.
 *   <li>{@link dev.tern.rpc.spi.ServerTransport}: a listener that hands each incoming stream, with its
 *       {@link dev.tern.rpc.spi.RequestHeaders}, to a {@link dev.tern.rpc.spi.ServerTransportListener},
 *       and reports each connection: {@code connectionCreated} when it is accepted, {@code
 *       connectionReady} with its {@link dev.tern.rpc.spi.ConnectionAttributes} when its handshake
 *       is done, {@code connectionTerminated} when it has ended (the server's transport filters
 *       and handshake timeout run on these); its streams return what {@code connectionReady}
 *       returned from {@link dev.tern.rpc.spi.ServerStream#attributes()}.
 *   <li>Run the conformance suite ({@code transport-conformance}): subclass its abstract test and
 *       supply the factories.
 * </ol>
 *
 * <h2>One stream, one RPC</h2>
 * A stream carries, in order: request headers (method, authority, metadata, deadline, compression,
 * priority, early-data permission); zero or more request messages; a half-close; and, from the
 * server, optional response headers, zero or more response messages, and exactly one close with a
 * {@link io.grpc.Status} and trailers. Either side may cancel at any time; a cancel ends the stream
 * on both sides and the other side's listener learns of it once.
 *
 * <h2>Messages and buffer ownership</h2>
 * Messages cross the SPI whole, uncompressed and unframed, as {@link java.nio.ByteBuffer}s. Passing a
 * buffer into a method <em>transfers</em> it: the caller must not read or write it afterwards and the
 * callee may keep it. Buffers a transport hands to a listener are likewise the listener's. No SPI
 * buffer needs releasing; transports that use pooled memory (Netty's {@code ByteBuf}) copy at the
 * boundary or hand out buffers they never reuse, and must release their pooled memory themselves.
 * Message framing and compression on the wire are the transport's: gRPC over HTTP/2 leaves them to
 * grpc-java; other transports may use {@link dev.tern.rpc.spi.GrpcMessageFraming}.
 *
 * <h2>Flow control</h2>
 * Inbound: a listener receives at most as many messages as were asked for with {@code request(n)};
 * a transport stops reading from the network (stops granting credit to the peer) rather than buffer
 * without bound. Outbound: {@code isReady()} turns false when the transport would buffer more than
 * its window; the listener's {@code onReady()} is called when it turns true again. Writing while not
 * ready is allowed (the message is buffered) but a well-behaved caller waits.
 *
 * <h2>Threading</h2>
 * Transport methods may be called from any thread. A transport calls one stream's listener serially
 * (never two callbacks at once for the same stream, in the order the events happened), usually from
 * its own I/O thread: listeners must not block. Tern's call layer moves work to the application's
 * executor itself.
 *
 * <h2>Early data</h2>
 * Tern's call layer opens the streams of calls allowed early data ({@link
 * dev.tern.rpc.spi.RequestHeaders#earlyDataAllowed()}: idempotent methods, or calls that opt in)
 * as soon as {@link dev.tern.rpc.spi.ClientTransport#start} has returned, so a transport with 0-RTT
 * can send them in its first flight; it opens all other streams only after {@code
 * transportReady}. A transport that cannot send early data simply queues those streams until its
 * handshake is done. If the handshake fails, it closes them with {@code UNAVAILABLE}. A transport
 * that can says so ({@link dev.tern.rpc.spi.TransportProvider#supportsEarlyData()}): only then does
 * a channel hand it such calls while another transport is still racing it.
 *
 * <h2>Helpers for transports</h2>
 * <ul>
 *   <li>{@link dev.tern.rpc.spi.SerializingExecutor} calls one stream's listener serially on a shared
 *       pool, without a thread per stream.
 *   <li>{@link dev.tern.rpc.spi.GrpcMessageFraming} and {@link dev.tern.rpc.spi.GrpcMessageDeframer}
 *       frame messages the gRPC way (flag, 4-byte length, payload; gzip through grpc-java's codecs)
 *       for transports that carry raw byte streams; the deframer enforces the maximum message size
 *       from the prefix, before buffering the body, and delivers no more than was requested.
 *   <li>{@link dev.tern.rpc.spi.TransportOptions#USER_AGENT} carries the channel's user agent to
 *       transports that send one.
 * </ul>
 *
 * <h2>Conformance</h2>
 * The suite in {@code transport-conformance} ({@code dev.tern.conformance.AbstractTransportConformanceTest})
 * checks every rule on this page against a transport; after each case it fails on listener
 * callbacks that overlap or follow a stream's end, on transports that never report termination, and
 * on leaked Netty buffers.
 *
 * <h2>Versions</h2>
 * Each side states the Tern protocol versions it speaks ({@link
 * dev.tern.rpc.spi.TransportOptions#PROTOCOL_VERSIONS}); the highest common one wins. Transports that
 * have a handshake carry this in it ({@link
 * dev.tern.rpc.spi.TransportProvider.VersionHandshake#IN_TRANSPORT}); for others (HTTP/2 over TCP,
 * where grpc-java offers no connection hook) the call layer adds a small header to every call.
 */
package dev.tern.rpc.spi;
