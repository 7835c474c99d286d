package dev.membership.spi;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * For a {@link RunHistoryStore} that keeps a ring of slots per job, partition and node
 * process: which rings a batch opens, so that the store trims what processes before it
 * left of that job and partition to the newest {@code maxRuns} before the ring's first
 * run is written. A ring is opened once per process, so with deploys coming and going a
 * job and partition keeps at most {@code maxRuns} runs of past processes plus a ring per
 * process that writes it, however many processes wrote it before. A trim removes at most
 * {@value #TRIM_AT_MOST} runs (the retention removes the rest of a larger backlog).
 * Thread-safe.
 */
public final class RunRings {

	/** The most runs one trim removes. */
	public static final int TRIM_AT_MOST = 500;

	private final Set<String> opened = ConcurrentHashMap.newKeySet();

	/**
	 * The first run of each ring that {@code records} open, one per process, job and
	 * partition.
	 */
	public List<RunRecord> opening(List<RunRecord> records) {
		Map<String, RunRecord> opening = new LinkedHashMap<>();
		for (RunRecord record : records) {
			String ring = ring(record);
			if (record.first() && !this.opened.contains(ring)) {
				opening.putIfAbsent(ring, record);
			}
		}
		return new ArrayList<>(opening.values());
	}

	/**
	 * The rings of {@code opening} are trimmed: none is trimmed again by this instance.
	 */
	public void trimmed(List<RunRecord> opening) {
		opening.forEach((record) -> this.opened.add(ring(record)));
	}

	private static String ring(RunRecord record) {
		return record.process() + '\u0000' + record.job() + '\u0000' + record.partition();
	}

}
