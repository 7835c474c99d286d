package dev.membership.testsupport;

import java.time.Duration;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Awaitility checks every 10 ms from the start: at test timings (100-600 ms) its default
 * 100 ms poll would blur what a test measures. Measured times come from recorders and
 * clocks, never from polling.
 */
public class FastPolling implements BeforeAllCallback {

	@Override
	public void beforeAll(ExtensionContext context) {
		Awaitility.setDefaultPollInterval(Duration.ofMillis(10));
		Awaitility.setDefaultPollDelay(Duration.ZERO);
	}

}
