/** Guice bindings for a Tern server and channel: {@link dev.tern.rpc.guice.TernModule}. */
package dev.tern.rpc.guice;
