/**
 * Tern's public API: grpc-java's API plus what Tern adds.
 *
 * <ul>
 *   <li>{@link dev.tern.rpc.TernChannelBuilder} and {@link dev.tern.rpc.TernServerBuilder}: a
 *       {@code ManagedChannelBuilder} and a {@code ServerBuilder} whose calls run over any transport
 *       on the class path (TCP, QUIC, Tern's UDP protocol, in-process), the client choosing by a
 *       preference order ({@link dev.tern.rpc.TransportSelector}) and the server listening on
 *       several transports with one set of services.
 *   <li>{@link dev.tern.rpc.TernCallOptions}: a call's {@link dev.tern.rpc.Priority} and whether it
 *       may travel as 0-RTT early data; {@link dev.tern.rpc.TernMethodOptions}: per-method defaults
 *       that generated code registers.
 *   <li>{@link dev.tern.rpc.TernChannels} and {@link dev.tern.rpc.TernServerCalls}: what a call is
 *       connected over ({@link dev.tern.rpc.ConnectionInfo}).
 *   <li>{@link dev.tern.rpc.ProtocolVersions}: the call-layer protocol-version handshake.
 * </ul>
 *
 * <p>The call layer behind the builders (package-private classes here) maps each grpc-java call
 * onto one SPI stream ({@link dev.tern.rpc.spi}), once for every transport: marshalling,
 * deadlines (the earliest of the call's and its {@code Context}'s), metadata, call credentials,
 * compression names, size limits, request-n flow control, cancellation both ways, interceptors,
 * stream tracers, and callbacks serialised on the application's executor.
 */
package dev.tern.rpc;
