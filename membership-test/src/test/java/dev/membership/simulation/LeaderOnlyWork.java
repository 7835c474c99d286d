package dev.membership.simulation;

import java.util.HashMap;
import java.util.Map;

import dev.membership.leadership.RevocationReason;

/**
 * Leader-only work in the simulation: every node runs short jobs (shorter than the drain
 * timeout) through their term's {@code tryBegin} while they lead a group or own a
 * partition. When one begins on a node while another node's run of the same group is
 * still running, that is allowed only after a fault (the other's belief ended by its
 * deadline, a lost lease or a crash: then fencing with the epoch protects the data);
 * after a graceful stop or a resign it is a violation, since the drain must have waited
 * for the run.
 */
final class LeaderOnlyWork {

	private record Run(String nodeId, long epoch, long startedAt) {
	}

	/** Open runs by group, then node id. */
	private final Map<String, Map<String, Run>> open = new HashMap<>();

	/** Why each term ended, by group and epoch, as the node published it. */
	private final Map<String, RevocationReason> endings = new HashMap<>();

	private long runs;

	private long overlapsAfterFaults;

	private String violation;

	/**
	 * Until when (virtual time) a fault may still have ended a belief without its drain:
	 * a run may then overlap an older term's run, which the fence refuses by the epoch.
	 */
	/**
	 * Until when a fault may have ended node's belief without its drain: any fault's, or
	 * that node's call that timed out (by the network's chance alone, two reads that
	 * confirm its renewals lost in a row end its terms by their deadline).
	 */
	private final java.util.function.ToLongFunction<String> disruptedUntil;

	LeaderOnlyWork(java.util.function.ToLongFunction<String> disruptedUntil) {
		this.disruptedUntil = disruptedUntil;
	}

	long runs() {
		return this.runs;
	}

	long overlapsAfterFaults() {
		return this.overlapsAfterFaults;
	}

	String violation() {
		return this.violation;
	}

	void termEnded(String group, long epoch, RevocationReason reason) {
		this.endings.put(group + "/" + epoch, reason);
	}

	void began(String nodeId, String group, long epoch, long now) {
		this.runs++;
		Map<String, Run> running = this.open.computeIfAbsent(group, (g) -> new HashMap<>());
		for (Run other : running.values()) {
			if (other.nodeId.equals(nodeId)) {
				continue;
			}
			RevocationReason ended = this.endings.get(group + "/" + other.epoch);
			boolean graceful = ended == RevocationReason.SHUTDOWN || ended == RevocationReason.RESIGNED
					|| ended == RevocationReason.MOVED || ended == RevocationReason.DRAINED;
			if (graceful && this.violation == null) {
				this.violation = Invariant.DRAINED_BEFORE_HANDOVER
					.violation(nodeId + " began leader-only work of group " + group + " (epoch " + epoch + ") while "
							+ other.nodeId + "'s run of epoch " + other.epoch + " still ran after a graceful " + ended);
			}
			else if (epoch <= other.epoch && this.violation == null) {
				this.violation = Invariant.FENCED_OVERLAP.violation(nodeId + " began leader-only work of group " + group
						+ " under epoch " + epoch + " while " + other.nodeId + "'s run of epoch " + other.epoch
						+ " still ran: the fence cannot refuse the older one");
			}
			else if (now > this.disruptedUntil.applyAsLong(other.nodeId) && this.violation == null) {
				this.violation = Invariant.FENCED_OVERLAP.violation(nodeId + " began leader-only work of group " + group
						+ " (epoch " + epoch + ") while " + other.nodeId + "'s run of epoch " + other.epoch
						+ " still ran, with no fault that could have ended its term without its drain");
			}
			else {
				this.overlapsAfterFaults++;
			}
		}
		running.put(nodeId, new Run(nodeId, epoch, now));
	}

	void ended(String nodeId, String group) {
		Map<String, Run> running = this.open.get(group);
		if (running != null) {
			running.remove(nodeId);
		}
	}

	/** A crash, or the end of a stopped process, ends the node's work with it. */
	void crashed(String nodeId) {
		this.open.values().forEach((running) -> running.remove(nodeId));
	}

}
