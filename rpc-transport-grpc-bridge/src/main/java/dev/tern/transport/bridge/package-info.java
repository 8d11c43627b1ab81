/**
 * The parts the transports built on a grpc-java transport share ({@code rpc-transport-tcp} on
 * grpc-netty, {@code rpc-transport-okhttp} on grpc-okhttp): a grpc-java call as Tern's client or
 * server stream with pass-through messages, connection events, connect-failure descriptions and
 * termination. Internal to those transports: not an API, and free of Netty and of Java APIs that
 * Android 8.0 lacks, as the mobile client set requires.
 */
package dev.tern.transport.bridge;
