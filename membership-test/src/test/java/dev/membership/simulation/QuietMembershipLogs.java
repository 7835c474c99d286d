package dev.membership.simulation;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;

/**
 * Silences the nodes' logs for a test class: a hundred thousand simulated elections would
 * log as many lines.
 */
final class QuietMembershipLogs implements BeforeAllCallback, AfterAllCallback {

	private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace
		.create(QuietMembershipLogs.class);

	@Override
	public void beforeAll(ExtensionContext context) {
		Logger logger = logger();
		context.getStore(NAMESPACE).put("level", (logger.getLevel() != null) ? logger.getLevel().toString() : "");
		logger.setLevel(Level.OFF);
	}

	@Override
	public void afterAll(ExtensionContext context) {
		String level = context.getStore(NAMESPACE).get("level", String.class);
		logger().setLevel((level == null || level.isEmpty()) ? null : Level.toLevel(level));
	}

	static Logger logger() {
		return (Logger) LoggerFactory.getLogger("dev.membership");
	}

}
