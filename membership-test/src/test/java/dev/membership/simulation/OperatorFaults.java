package dev.membership.simulation;

import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;

import dev.membership.engine.MembershipNode;
import dev.membership.operations.HandOver;
import dev.membership.operations.Pause;
import dev.membership.operations.Pin;
import dev.membership.operations.Requester;
import dev.membership.operations.Resume;
import dev.membership.operations.Undrain;
import dev.membership.operations.Unpin;
import dev.membership.spi.MembershipSettings;

/**
 * What operators do to a running cluster, as faults of the simulator: hand a group to a
 * named node, drain a node (and undrain it later), move and pin a partition (and unpin it
 * later), pause rebalancing (and resume it). Every one goes through the drain, the epochs
 * and the fences like any other hand-over, so the invariants hold throughout; what they
 * leave behind is undone at the heal, since the checks after it expect a balanced
 * placement over every node.
 */
final class OperatorFaults {

	/** Who asks for the simulated operators' actions. */
	static final Requester BY = Requester.of("simulated-operator");

	private final Random random;

	private final List<String> groups;

	private final int partitions;

	/** The nodes running now (not stopping, no twins). */
	private final java.util.function.Supplier<List<MembershipNode>> running;

	private final Consumer<String> note;

	OperatorFaults(Random random, List<String> groups, int partitions,
			java.util.function.Supplier<List<MembershipNode>> running, Consumer<String> note) {
		this.random = random;
		this.groups = groups;
		this.partitions = partitions;
		this.running = running;
		this.note = note;
	}

	/** The leader of a plain group hands it to another running node. */
	void handOver(MembershipNode from) {
		String group = this.groups.get(this.random.nextInt(this.groups.size()));
		List<MembershipNode> others = this.running.get().stream().filter((n) -> n != from).toList();
		if (!from.isLeader(group) || others.isEmpty()) {
			return;
		}
		String to = others.get(this.random.nextInt(others.size())).nodeId();
		refusedOrDone(() -> from.operations().handOver(new HandOver(group, to, BY)),
				from.nodeId() + " hands " + group + " to " + to);
	}

	/**
	 * The coordinator moves a partition to a running node and pins it there; returns the
	 * partition, or -1.
	 */
	int pin() {
		MembershipNode coordinator = coordinator();
		List<MembershipNode> nodes = this.running.get();
		if (coordinator == null || nodes.isEmpty()) {
			return -1;
		}
		int partition = this.random.nextInt(this.partitions);
		String to = nodes.get(this.random.nextInt(nodes.size())).nodeId();
		refusedOrDone(() -> coordinator.operations().pin(new Pin(Simulation.PARTITIONED, partition, to, BY)),
				"pin " + Simulation.PARTITIONED + "#" + partition + " to " + to);
		return partition;
	}

	void unpin(int partition) {
		MembershipNode coordinator = coordinator();
		if (coordinator != null && partition >= 0) {
			refusedOrDone(() -> coordinator.operations().unpin(new Unpin(Simulation.PARTITIONED, partition, BY)),
					"unpin " + Simulation.PARTITIONED + "#" + partition);
		}
	}

	void pause(long nanos) {
		MembershipNode coordinator = coordinator();
		if (coordinator != null) {
			Duration length = Duration.ofNanos(Math.max(nanos, 1_000_000));
			refusedOrDone(() -> coordinator.operations().pause(new Pause(length, BY)),
					"pause rebalancing for " + length);
		}
	}

	void resume() {
		MembershipNode coordinator = coordinator();
		if (coordinator != null) {
			refusedOrDone(() -> coordinator.operations().resume(new Resume(BY)), "resume rebalancing");
		}
	}

	/**
	 * At the heal: every node undrained, every pin off, rebalancing resumed (again once a
	 * coordinator is back).
	 */
	void undoAll() {
		this.running.get().forEach((node) -> node.operations().undrain(new Undrain(BY)));
		for (int p = 0; p < this.partitions; p++) {
			unpin(p);
		}
		resume();
	}

	private MembershipNode coordinator() {
		return this.running.get()
			.stream()
			.filter((n) -> n.isLeader(MembershipSettings.DEFAULT_GROUP))
			.findFirst()
			.orElse(null);
	}

	/**
	 * An operator's request is refused when the cluster moved on meanwhile (a new leader,
	 * a node gone): fine.
	 */
	private void refusedOrDone(Runnable request, String what) {
		try {
			request.run();
			this.note.accept("operator: " + what);
		}
		catch (IllegalArgumentException ex) {
			this.note.accept("operator: " + what + " refused: " + ex.getMessage());
		}
	}

}
