/**
 * Retries, hedging and circuit breakers for Tern channels, with resilience4j: {@link
 * dev.tern.rpc.resilience.TernResilience} is the entry point, found by every channel builder when
 * this module is on the class path.
 */
package dev.tern.rpc.resilience;
