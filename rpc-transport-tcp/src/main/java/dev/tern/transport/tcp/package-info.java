/**
 * Tern's gRPC-over-HTTP/2 transport on TCP: a thin adapter from the transport SPI onto grpc-java's
 * Netty transport. Only {@link dev.tern.transport.tcp.TcpTransportProvider} is public.
 */
package dev.tern.transport.tcp;
