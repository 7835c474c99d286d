package dev.membership.jdbc.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Says which property chooses the store when the application has both PostgreSQL and MongoDB. */
class AmbiguousMembershipStoreFailureAnalyzer extends AbstractFailureAnalyzer<AmbiguousMembershipStoreException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, AmbiguousMembershipStoreException cause) {
		return new FailureAnalysis(cause.getMessage() + ". Every instance of the service must use the same one.",
				"Set membership.store=jdbc to keep leases and the roster in PostgreSQL through the DataSource, or "
						+ "membership.store=mongodb to keep them in MongoDB.",
				cause);
	}

}
