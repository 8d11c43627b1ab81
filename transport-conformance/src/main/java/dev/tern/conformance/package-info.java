/**
 * The transport conformance suite. A transport's test class extends {@link
 * dev.tern.conformance.AbstractTransportConformanceTest} and supplies {@code transportProvider()}
 * and {@code newServerAddress()}; the cases come from the chain of abstract classes it extends
 * (lifecycle, streaming, cancellation, flow control, server behaviour, end-to-end, leaks).
 *
 * <p>Put this module on a transport module's test class path:
 *
 * <pre>{@code
 * <dependency>
 *   <groupId>dev.tern</groupId><artifactId>transport-conformance</artifactId><scope>test</scope>
 * </dependency>
 * }</pre>
 */
package dev.tern.conformance;
