/**
 * The in-process transport ({@code "inprocess"}): client and server in one JVM, for fast tests,
 * with real flow control, gzip and size limits. Address servers with {@link
 * dev.tern.rpc.inprocess.InProcessAddress}:
 *
 * <pre>{@code
 * InProcessAddress address = new InProcessAddress("test");
 * Server server = TernServerBuilder.create().listen("inprocess", address).addService(svc).build().start();
 * ManagedChannel channel = TernChannelBuilder.forAddress(address).transports("inprocess").usePlaintext().build();
 * }</pre>
 */
package dev.tern.rpc.inprocess;
