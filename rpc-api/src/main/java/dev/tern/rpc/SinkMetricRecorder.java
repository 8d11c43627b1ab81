package dev.tern.rpc;

import io.grpc.CallbackMetricInstrument;
import io.grpc.DoubleCounterMetricInstrument;
import io.grpc.DoubleHistogramMetricInstrument;
import io.grpc.LongCounterMetricInstrument;
import io.grpc.LongGaugeMetricInstrument;
import io.grpc.LongHistogramMetricInstrument;
import io.grpc.LongUpDownCounterMetricInstrument;
import io.grpc.MetricInstrument;
import io.grpc.MetricInstrumentRegistry;
import io.grpc.MetricRecorder;
import io.grpc.MetricSink;
import java.util.ArrayList;
import java.util.List;

/**
 * What a channel's load-balancing policy and name resolver record through grpc's {@link
 * MetricRecorder} ({@code Helper.getMetricRecorder()}, {@code NameResolver.Args.getMetricRecorder()}),
 * handed to each {@link MetricSink} the builder was given ({@code addMetricSink}, which grpc-java's
 * OpenTelemetry and CSM observability modules call). With no sink it is grpc's recorder that records
 * nothing.
 */
final class SinkMetricRecorder implements MetricRecorder {
  private static final MetricRecorder NONE = new MetricRecorder() {};

  private final List<MetricSink> sinks;

  private SinkMetricRecorder(List<MetricSink> sinks) {
    this.sinks = sinks;
  }

  /** A recorder over {@code sinks} (copied); the recorder that records nothing if there are none. */
  static MetricRecorder of(List<MetricSink> sinks) {
    return sinks.isEmpty() ? NONE : new SinkMetricRecorder(java.util.Collections.unmodifiableList(new java.util.ArrayList<>(sinks)));
  }

  /**
   * Makes {@code sink} know {@code instrument}: a sink sizes its measures to the instruments
   * registered when it was made, and one registered since (by a policy loaded later) makes it
   * size them again.
   */
  private static void know(MetricSink sink, MetricInstrument instrument) {
    if (sink.getMeasuresSize() <= instrument.getIndex()) {
      sink.updateMeasures(MetricInstrumentRegistry.getDefaultRegistry().getMetricInstruments());
    }
  }

  private static void checkLabels(MetricInstrument instrument, List<String> required, List<String> optional) {
    if (required == null || required.size() != instrument.getRequiredLabelKeys().size()) {
      throw new IllegalArgumentException(instrument.getName() + ": " + instrument.getRequiredLabelKeys().size()
          + " required label values expected, got " + required);
    }
    if (optional == null || optional.size() != instrument.getOptionalLabelKeys().size()) {
      throw new IllegalArgumentException(instrument.getName() + ": " + instrument.getOptionalLabelKeys().size()
          + " optional label values expected, got " + optional);
    }
  }

  @Override
  public void addDoubleCounter(DoubleCounterMetricInstrument instrument, double value, List<String> required,
      List<String> optional) {
    checkLabels(instrument, required, optional);
    for (MetricSink s : sinks) {
      know(s, instrument);
      s.addDoubleCounter(instrument, value, required, optional);
    }
  }

  @Override
  public void addLongCounter(LongCounterMetricInstrument instrument, long value, List<String> required,
      List<String> optional) {
    checkLabels(instrument, required, optional);
    for (MetricSink s : sinks) {
      know(s, instrument);
      s.addLongCounter(instrument, value, required, optional);
    }
  }

  @Override
  public void addLongUpDownCounter(LongUpDownCounterMetricInstrument instrument, long value, List<String> required,
      List<String> optional) {
    checkLabels(instrument, required, optional);
    for (MetricSink s : sinks) {
      know(s, instrument);
      s.addLongUpDownCounter(instrument, value, required, optional);
    }
  }

  @Override
  public void recordDoubleHistogram(DoubleHistogramMetricInstrument instrument, double value, List<String> required,
      List<String> optional) {
    checkLabels(instrument, required, optional);
    for (MetricSink s : sinks) {
      know(s, instrument);
      s.recordDoubleHistogram(instrument, value, required, optional);
    }
  }

  @Override
  public void recordLongHistogram(LongHistogramMetricInstrument instrument, long value, List<String> required,
      List<String> optional) {
    checkLabels(instrument, required, optional);
    for (MetricSink s : sinks) {
      know(s, instrument);
      s.recordLongHistogram(instrument, value, required, optional);
    }
  }

  @Override
  public Registration registerBatchCallback(BatchCallback callback, CallbackMetricInstrument... instruments) {
    List<MetricSink.Registration> registrations = new ArrayList<>(sinks.size());
    for (MetricSink s : sinks) {
      for (CallbackMetricInstrument i : instruments) {
        know(s, i);
      }
      BatchRecorder recorder = new BatchRecorder() {
        @Override
        public void recordLongGauge(LongGaugeMetricInstrument instrument, long value, List<String> required,
            List<String> optional) {
          checkLabels(instrument, required, optional);
          s.recordLongGauge(instrument, value, required, optional);
        }
      };
      registrations.add(s.registerBatchCallback(() -> callback.accept(recorder), instruments));
    }
    return () -> registrations.forEach(MetricSink.Registration::close);
  }
}
