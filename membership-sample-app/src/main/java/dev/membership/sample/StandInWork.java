package dev.membership.sample;

import java.time.Duration;

/**
 * Stands for the real work of a sample job: sleeps {@code duration} (zero: nothing),
 * keeping an interrupt.
 */
public final class StandInWork {

	private StandInWork() {
	}

	public static void take(Duration duration) {
		if (duration.isZero()) {
			return;
		}
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
