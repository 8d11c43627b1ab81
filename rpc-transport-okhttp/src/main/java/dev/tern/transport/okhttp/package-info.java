/**
 * gRPC over HTTP/2 on TCP on grpc-java's OkHttp transport: the TCP transport of Tern's mobile client
 * set, named {@code okhttp}. It uses no Netty class and no native library, so it runs on Android.
 */
package dev.tern.transport.okhttp;
