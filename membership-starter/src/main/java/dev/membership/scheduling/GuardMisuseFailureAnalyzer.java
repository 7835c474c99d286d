package dev.membership.scheduling;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Says which guarded method cannot work as annotated, and what to change. */
class GuardMisuseFailureAnalyzer extends AbstractFailureAnalyzer<GuardMisuseException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, GuardMisuseException cause) {
		return new FailureAnalysis(cause.description(), cause.action(), cause);
	}

}
