package dev.membership.bench.scale;

import java.util.List;

/**
 * What the scale table's columns mean and how its figures were taken, printed under it.
 */
final class ScaleNotes {

	private ScaleNotes() {
	}

	static String note(ScaleScenario.Settings settings, int lightThreads) {
		return String.join("\n", List.of(
				"- Plain-Java nodes (no Spring) in one JVM, all sharing one MongoDB client (a process per node would "
						+ "each have its own) against one embedded server (mongo-java-server, in memory), with timings "
						+ "renewal interval / lease / liveness window as in the second column (5 / 15 / 10 s are the "
						+ "production defaults). Nodes run on a bench-only NodeRuntime: one timer thread, "
						+ settings.storeThreads() + " threads shared by every node's loop (store calls block), "
						+ lightThreads + " by every node's watchdog and event lanes; each lane is a serial strand on "
						+ "them. Nodes start staggered, " + settings.startsPerSecond() + " per second.",
				"- All list all live after: seconds from the last node's start() until every node's liveMembers() "
						+ "holds every node. A size that does not get there within the bound says so, is counted "
						+ "anyway (the load it makes while it fails), gets no join or crash, and larger sizes with the "
						+ "same timings are skipped.",
				"- Counts: over " + settings.countIntervals() + " renewal intervals right after convergence (after "
						+ "the heap sample). Store calls: the node's calls through its runtime (every store call of a "
						+ "node goes through NodeRuntime.call). Commands, documents and bytes: a CommandListener on the "
						+ "shared client charges each command to the node whose store call runs on that thread. "
						+ "Documents read: documents in cursor replies (find, getMore batches) plus one per "
						+ "findAndModify reply whose value is not null. Leader: the node where isLeader(\"default\") "
						+ "held in most of the samples taken every 100 ms during the count (\"-\": none led); "
						+ "followers: the mean over the nodes that never led in a sample. Cluster docs: all "
						+ "nodes' documents per interval, and that as a multiple of N. Cluster MiB: the encoded size of "
						+ "every reply (the driver hands listeners the raw reply bytes, so every reply is measured, "
						+ "none estimated).",
				"- find p50 / p99: the driver's elapsed time (CommandSucceededEvent) of every find command in the count. "
						+ "The stand-in answers a find with every document in its first batch (no getMore in these "
						+ "runs), so this is the whole listing's round trip: the server's work and, on a loaded machine, "
						+ "the waits for a core.",
				"- Join: from start() of a new node until every running node (itself included) lists it live; "
						+ "joins: " + settings.joins() + ", one after another. Crash: halt() of a non-leader (no "
						+ "goodbye, its document stays) until no running node lists it live; crashes: "
						+ settings.crashes() + ", one after another, after the joins. Both polled through "
						+ "liveMembers().",
				"- Heap per node: used heap after System.gc() with the nodes running and converged, minus before the "
						+ "first node started, divided by N (includes the server's documents and the client).",
				"- CPU: this JVM's CPU time during the count (nodes, client, server and harness together) over the "
						+ "count's wall time; at the number of cores, the machine is saturated and the nodes fall behind "
						+ "their renewal interval (fewer store calls per interval than the same nodes make at small sizes)."));
	}

}
