package dev.membership.bench.support;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;

/**
 * Counts the commands a MongoDB client sends, by name. The driver's own monitoring
 * (server heartbeats, connection handshakes) is not a command and is not counted, for
 * either library.
 */
public final class CommandCounter implements CommandListener {

	private final Map<String, LongAdder> byName = new ConcurrentHashMap<>();

	@Override
	public void commandStarted(CommandStartedEvent event) {
		this.byName.computeIfAbsent(event.getCommandName(), (name) -> new LongAdder()).increment();
	}

	public long total() {
		return this.byName.values().stream().mapToLong(LongAdder::sum).sum();
	}

	public Map<String, Long> byName() {
		Map<String, Long> counts = new TreeMap<>();
		this.byName.forEach((name, count) -> counts.put(name, count.sum()));
		return counts;
	}

	public void reset() {
		this.byName.values().forEach(LongAdder::reset);
	}

}
