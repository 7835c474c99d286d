package dev.membership.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Says why membership has no store and what to add, instead of starting a node whose
 * leader-only work never runs.
 */
class NoMembershipStoreFailureAnalyzer extends AbstractFailureAnalyzer<NoMembershipStoreException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, NoMembershipStoreException cause) {
		return new FailureAnalysis(
				"membership is enabled but has nowhere to keep the cluster: " + cause.reason()
						+ ". Without a store no node would ever lead, so @LeaderOnly methods would never run.",
				"Add the store module for your database, one dependency that brings the rest of membership: "
						+ "dev.membership:membership-mongodb (MongoDB, through spring-boot-starter-data-mongodb or its "
						+ "-reactive sibling and spring.mongodb.uri) or dev.membership:membership-jdbc (PostgreSQL, "
						+ "through spring-boot-starter-jdbc and spring.datasource.url); or define a bean of type "
						+ "dev.membership.spi.MembershipStore; or set membership.enabled=false to run without "
						+ "membership.",
				cause);
	}

}
