package dev.membership.test;

import java.time.Clock;
import java.time.Duration;

import dev.membership.spi.RunHistoryStore;

/** The in-memory history passes the same contract as the MongoDB ones. */
class InMemoryRunHistoryContractTests extends RunHistoryContract {

	@Override
	protected RunHistoryStore createHistory() {
		return new InMemoryRunHistory(Clock.systemUTC(), Duration.ofDays(7), MAX_RUNS);
	}

}
