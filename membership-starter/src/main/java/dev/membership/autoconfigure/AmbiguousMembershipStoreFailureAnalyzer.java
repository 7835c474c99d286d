package dev.membership.autoconfigure;

import java.util.stream.Collectors;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Says which property chooses the store when the application could keep the cluster in
 * more than one database.
 */
class AmbiguousMembershipStoreFailureAnalyzer extends AbstractFailureAnalyzer<AmbiguousMembershipStoreException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, AmbiguousMembershipStoreException cause) {
		return new FailureAnalysis(cause.getMessage() + ". Every instance of the service must use the same one.",
				"Set membership.store to one of "
						+ cause.offers().stream().map((offer) -> offer.store()).collect(Collectors.joining(", "))
						+ " (the same on every instance).",
				cause);
	}

}
