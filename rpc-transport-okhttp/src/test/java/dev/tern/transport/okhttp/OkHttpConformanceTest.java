package dev.tern.transport.okhttp;

/** The OkHttp transport, in plaintext, passes the conformance suite. */
class OkHttpConformanceTest extends OkHttpConformanceBase {}
