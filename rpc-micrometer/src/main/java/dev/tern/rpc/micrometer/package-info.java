/** Tern's counters as Micrometer meters: {@link dev.tern.rpc.micrometer.TernMeterBinder}. */
package dev.tern.rpc.micrometer;
