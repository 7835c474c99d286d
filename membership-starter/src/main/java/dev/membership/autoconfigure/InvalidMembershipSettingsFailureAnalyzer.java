package dev.membership.autoconfigure;

import java.util.stream.Collectors;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import dev.membership.InvalidMembershipSettingsException;

/** Names every membership.* property that breaks a rule, and the rule. */
class InvalidMembershipSettingsFailureAnalyzer extends AbstractFailureAnalyzer<InvalidMembershipSettingsException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidMembershipSettingsException cause) {
		String description = cause.violations()
			.stream()
			.map((v) -> "  - " + v.settings().stream().map((s) -> "membership." + s).collect(Collectors.joining(", "))
					+ ": " + v.message())
			.collect(Collectors.joining(System.lineSeparator(),
					"The membership configuration cannot keep leadership safe:" + System.lineSeparator(), ""));
		String action = "Update the membership.* properties. The rules: renewal-interval x 2 <= lease-duration; "
				+ "renewal-interval < liveness-window < lease-duration; safety-margin < lease-duration - "
				+ "renewal-interval; mongo.operation-timeout < lease-duration; every duration positive; node-id not "
				+ "blank. The defaults (5s, 15s, 10s) satisfy them.";
		return new FailureAnalysis(description, action, cause);
	}

}
