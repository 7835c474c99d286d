package dev.membership.scheduling;

import java.lang.reflect.Method;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.membership.spi.Fire;

/**
 * The fire a scheduled job's run is, on the thread that runs it: set by
 * {@link LeaderOnlyFires} around the call of the guarded method, taken (once) by
 * {@link LeaderOnlyInterceptor} or {@link ForEachOwnedPartitionInterceptor}, which
 * registers the run with the fire's term (a partition's, for the latter).
 */
final class FireContext {

	private record Current(Fire fire, String method, List<Class<?>> parameters) {

		boolean isOf(String group, Method called) {
			return this.fire.group().equals(group) && this.method.equals(called.getName())
					&& this.parameters.equals(List.of(called.getParameterTypes()));
		}

	}

	private static final ThreadLocal<Current> current = new ThreadLocal<>();

	private FireContext() {
	}

	/**
	 * Runs {@code call} as {@code fire}'s run of {@code method} on this thread. The guard
	 * takes it by the group and the method, not the job's name: a class with several
	 * beans has one guard for all and a job per bean.
	 */
	static void run(Fire fire, Method method, Runnable call) {
		Current outer = current.get();
		current.set(new Current(fire, method.getName(), List.of(method.getParameterTypes())));
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

	/**
	 * The fire this thread runs for the guarded {@code method} of {@code group}, taken:
	 * null when none.
	 */
	static @Nullable Fire take(String group, Method method) {
		Current fire = current.get();
		if (fire == null || !fire.isOf(group, method)) {
			return null;
		}
		current.remove();
		return fire.fire();
	}

}
