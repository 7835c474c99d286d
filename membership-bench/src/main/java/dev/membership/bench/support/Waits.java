package dev.membership.bench.support;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Bounded polling for the harness (not a test: no Awaitility on the benchmark's classpath). */
public final class Waits {

	private Waits() {
	}

	/** Polls every millisecond or so until the condition holds; throws after {@code timeout}. */
	public static void until(String what, Duration timeout, BooleanSupplier condition) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException("Timed out after " + timeout + " waiting for " + what);
			}
			pause(Duration.ofMillis(1));
		}
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
