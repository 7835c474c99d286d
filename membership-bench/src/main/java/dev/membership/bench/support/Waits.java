package dev.membership.bench.support;

import java.time.Duration;
import java.util.function.BooleanSupplier;

import org.awaitility.Awaitility;

/**
 * Bounded waits for the harness: Awaitility for conditions, and plain pauses for
 * measurement windows.
 */
public final class Waits {

	private Waits() {
	}

	/**
	 * Polls every millisecond, on the calling thread, until the condition holds; fails
	 * after {@code timeout}.
	 */
	public static void until(String what, Duration timeout, BooleanSupplier condition) {
		Awaitility.await(what)
			.atMost(timeout)
			.pollDelay(Duration.ZERO)
			.pollInterval(Duration.ofMillis(1))
			.pollInSameThread()
			.until(condition::getAsBoolean);
	}

	public static void pause(Duration duration) {
		try {
			Thread.sleep(duration.toMillis(), (int) (duration.toNanos() % 1_000_000));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", ex);
		}
	}

}
