package dev.tern.transport.tcp;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.Arrays;
import java.util.Optional;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Disables inherited conformance cases by name, with a reason (the suite's cases are
 * package-private, so a subclass in another package cannot override them to disable them).
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@ExtendWith(SkipInheritedCases.Condition.class)
@interface SkipInheritedCases {
  /** Method names of the cases to skip. */
  String[] value();

  /** Why they are skipped; shown in the test report. */
  String reason();

  /** Evaluates {@link SkipInheritedCases}. */
  final class Condition implements ExecutionCondition {
    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
      Optional<SkipInheritedCases> skip = context.getTestClass()
          .map(c -> c.getAnnotation(SkipInheritedCases.class));
      Optional<String> method = context.getTestMethod().map(m -> m.getName());
      if (skip.isPresent() && method.isPresent() && Arrays.asList(skip.get().value()).contains(method.get())) {
        return ConditionEvaluationResult.disabled(skip.get().reason());
      }
      return ConditionEvaluationResult.enabled("not skipped");
    }
  }
}
