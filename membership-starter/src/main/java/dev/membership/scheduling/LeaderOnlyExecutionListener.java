package dev.membership.scheduling;

/** Told of every {@code @LeaderOnly} call; for metrics. Must be fast. */
public interface LeaderOnlyExecutionListener {

	void executed(String group, String method);

	void skipped(String group, String method);

	static LeaderOnlyExecutionListener none() {
		return new LeaderOnlyExecutionListener() {
			@Override
			public void executed(String group, String method) {
			}

			@Override
			public void skipped(String group, String method) {
			}
		};
	}

}
