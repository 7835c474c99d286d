package dev.membership.spi;

/** Told of every {@code @LeaderOnly} call; for metrics. Must be fast. */
public interface LeaderOnlyExecutionListener {

	void executed(String group, String method);

	void skipped(String group, String method);

	/**
	 * What to run on each execution of one guarded method, asked once per method so that
	 * a listener can resolve its meters up front instead of on every call.
	 */
	default Runnable executions(String group, String method) {
		return () -> executed(group, method);
	}

	/** What to run on each skipped call of one guarded method; asked once per method. */
	default Runnable skips(String group, String method) {
		return () -> skipped(group, method);
	}

	static LeaderOnlyExecutionListener none() {
		return new LeaderOnlyExecutionListener() {
			@Override
			public void executed(String group, String method) {
			}

			@Override
			public void skipped(String group, String method) {
			}

			@Override
			public Runnable executions(String group, String method) {
				return NOTHING;
			}

			@Override
			public Runnable skips(String group, String method) {
				return NOTHING;
			}
		};
	}

	/** Does nothing; a constant so that an unobserved guard allocates nothing. */
	Runnable NOTHING = () -> {
	};

}
