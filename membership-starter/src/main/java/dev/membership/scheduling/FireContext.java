package dev.membership.scheduling;

import org.jspecify.annotations.Nullable;

import dev.membership.spi.Fire;

/**
 * The fire a scheduled job's run is, on the thread that runs it: set by {@link LeaderOnlyFires} around the call of the
 * guarded method, taken (once) by {@link LeaderOnlyInterceptor} or {@link ForEachOwnedPartitionInterceptor}, which
 * registers the run with the fire's term (a partition's, for the latter).
 */
final class FireContext {

	private static final ThreadLocal<Fire> current = new ThreadLocal<>();

	private FireContext() {
	}

	/** Runs {@code call} as {@code fire}'s run on this thread. */
	static void run(Fire fire, Runnable call) {
		Fire outer = current.get();
		current.set(fire);
		try {
			call.run();
		}
		finally {
			if (outer != null) {
				current.set(outer);
			}
			else {
				current.remove();
			}
		}
	}

	/** The fire this thread runs for the guarded method of {@code group} and {@code job}, taken: null when none. */
	static @Nullable Fire take(String group, String job) {
		Fire fire = current.get();
		if (fire == null || !fire.group().equals(group) || !fire.job().equals(job)) {
			return null;
		}
		current.remove();
		return fire;
	}

}
