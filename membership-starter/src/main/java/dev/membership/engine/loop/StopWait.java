package dev.membership.engine.loop;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.spi.MembershipSettings;
import dev.membership.spi.NodeRuntime;

/**
 * How long a caller of a node's graceful {@code stop(Duration)} waits: the stop's own
 * bound, and no longer.
 */
public final class StopWait {

	private static final Logger log = LoggerFactory.getLogger(StopWait.class);

	private StopWait() {
	}

	/**
	 * Waits for a graceful stop ({@code stopped}) that began at {@code startedNanos}
	 * ({@link System#nanoTime()}): until the drain timeout plus {@code timeout} have
	 * passed since (and a second of slack, so that a stop whose timers started a little
	 * late is not cut short), then, within that bound, a little for the reactions (the
	 * release notices) and listeners to see the SHUTDOWN revocations.
	 */
	public static void await(MembershipSettings settings, NodeRuntime runtime, CompletableFuture<Void> stopped,
			Duration timeout, long startedNanos) {
		long deadline = startedNanos + settings.drainTimeout().plus(timeout).toNanos();
		try {
			stopped.get(Math.max(0, deadline + TimeUnit.SECONDS.toNanos(1) - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			log.warn("Membership node {} was interrupted while stopping; it hands over without waiting further",
					settings.nodeId());
			return;
		}
		catch (ExecutionException | TimeoutException ex) {
			log.debug("Membership node {} is still stopping: {}", settings.nodeId(), ex.toString());
			return;
		}
		// the last events' delivery
		long events = Math.min(TimeUnit.SECONDS.toNanos(2), deadline - System.nanoTime());
		if (events > 0) {
			runtime.awaitEvents(Duration.ofNanos(events));
		}
	}

}
