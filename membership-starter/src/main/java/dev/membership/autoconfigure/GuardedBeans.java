package dev.membership.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

import dev.membership.broadcast.BroadcastMetrics;
import dev.membership.engine.guard.Guarded;
import dev.membership.spi.LeaderOnlyExecutionListener;

/**
 * Every bean of a callback type the starter calls (its own meters among them), as one:
 * each called in {@code @Order}, and what one throws logged (its first failure with the
 * stack trace, later ones at debug) and stopped there, so that neither guarded work nor
 * the broadcast's own notices depend on an application's metrics.
 */
final class GuardedBeans {

	private GuardedBeans() {
	}

	static LeaderOnlyExecutionListener leaderOnly(List<LeaderOnlyExecutionListener> beans) {
		List<Guarded<LeaderOnlyExecutionListener>> each = beans.stream()
			.map((bean) -> new Guarded<>("@LeaderOnly listener", bean))
			.toList();
		return new LeaderOnlyExecutionListener() {

			@Override
			public void executed(String group, String method) {
				each.forEach((l) -> l.call("executed", (bean) -> bean.executed(group, method)));
			}

			@Override
			public void skipped(String group, String method) {
				each.forEach((l) -> l.call("skipped", (bean) -> bean.skipped(group, method)));
			}

			@Override
			public Runnable executions(String group, String method) {
				return all(each, "executions", (bean) -> bean.executions(group, method));
			}

			@Override
			public Runnable skips(String group, String method) {
				return all(each, "skips", (bean) -> bean.skips(group, method));
			}

		};
	}

	/**
	 * What each listener runs per call of one method, as one guarded runnable; nothing
	 * when none runs anything.
	 */
	private static Runnable all(List<Guarded<LeaderOnlyExecutionListener>> each, String what,
			Function<LeaderOnlyExecutionListener, Runnable> per) {
		List<Runnable> runs = new ArrayList<>();
		for (Guarded<LeaderOnlyExecutionListener> listener : each) {
			Runnable[] run = { LeaderOnlyExecutionListener.NOTHING };
			listener.call(what, (bean) -> run[0] = per.apply(bean));
			if (run[0] != null && run[0] != LeaderOnlyExecutionListener.NOTHING) {
				Runnable target = run[0];
				// made once, not per call
				Consumer<LeaderOnlyExecutionListener> invoke = (bean) -> target.run();
				runs.add(() -> listener.call(what, invoke));
			}
		}
		if (runs.isEmpty()) {
			return LeaderOnlyExecutionListener.NOTHING;
		}
		return (runs.size() == 1) ? runs.get(0) : () -> runs.forEach(Runnable::run);
	}

	static BroadcastMetrics broadcast(List<BroadcastMetrics> beans) {
		List<Guarded<BroadcastMetrics>> each = beans.stream()
			.map((bean) -> new Guarded<>("broadcast metrics", bean))
			.toList();
		return new BroadcastMetrics() {

			@Override
			public void register() {
				each.forEach((m) -> m.call("register", BroadcastMetrics::register));
			}

			@Override
			public void sent(Sent outcome) {
				each.forEach((m) -> m.call("sent", (bean) -> bean.sent(outcome)));
			}

			@Override
			public void received(Received outcome) {
				each.forEach((m) -> m.call("received", (bean) -> bean.received(outcome)));
			}

		};
	}

}
