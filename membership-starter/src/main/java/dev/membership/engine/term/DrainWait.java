package dev.membership.engine.term;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.spi.MembershipSettings;
import dev.membership.spi.NodeRuntime;

/**
 * The wait for a drain, bounded by the drain timeout on the watchdog, and what is said
 * when the timeout ends it first: shared by a unit's hand-over and the node's stop.
 */
public final class DrainWait {

	private static final Logger log = LoggerFactory.getLogger(DrainWait.class);

	private DrainWait() {
	}

	/**
	 * Completes once {@code drained} completed or the drain timeout passed, whichever
	 * comes first (then after {@code onTimeout}); at once when the node halted meanwhile.
	 */
	public static CompletableFuture<Void> orTimeout(NodeRuntime runtime, MembershipSettings settings,
			CompletableFuture<Void> drained, Runnable onTimeout) {
		CompletableFuture<Void> once = new CompletableFuture<>();
		if (drained.isDone()) {
			once.complete(null);
			return once;
		}
		NodeRuntime.Timer timeout = runtime.watchdog().schedule(() -> {
			onTimeout.run();
			once.complete(null);
		}, settings.drainTimeout().toNanos());
		drained.whenComplete((ok, ex) -> {
			if (timeout != null) {
				timeout.cancel();
			}
			once.complete(null);
		});
		if (timeout == null) {
			once.complete(null); // halted meanwhile
		}
		return once;
	}

	/** Says that {@code group}'s drain timed out while {@code term}'s work still ran. */
	public static void warnTimedOut(MembershipSettings settings, String group, CompletableFuture<Void> drained,
			@Nullable Term term) {
		if (term != null && !drained.isDone()) {
			Duration timeout = settings.drainTimeout();
			log.warn(
					"Node {} hands group '{}' over after waiting {} for leader-only work that is still running: {}. "
							+ "The next leader may start while it runs; fence its writes with the epoch ({}), or raise "
							+ "membership.shutdown.drain-timeout",
					settings.nodeId(), group, timeout, term.runningWork(), term.epoch());
		}
	}

}
