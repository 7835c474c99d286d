package dev.membership.actuate;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import dev.membership.Membership;
import dev.membership.event.MembershipEvent;
import dev.membership.leadership.PartitionAssignedEvent;
import dev.membership.leadership.PartitionReleasedEvent;
import dev.membership.leadership.PartitionRevokedEvent;

/**
 * The meters of partitioned groups: partitions owned, partitions moving in and out, and
 * how long this node took to hand a partition over (from the revocation, when its drain
 * began, to the release of its lease), from the node's events. Tags: the group, and the
 * direction of a move.
 */
final class PartitionMeters {

	private final MeterRegistry registry;

	/**
	 * When each partition's hand-over began here, by {@code group#partition#epoch}, in
	 * this JVM's nanoseconds.
	 */
	private final Map<String, Long> handingOver = new ConcurrentHashMap<>();

	PartitionMeters(MeterRegistry registry) {
		this.registry = registry;
	}

	void register(Membership membership, String group) {
		Gauge.builder("membership.partitions.owned", membership, (m) -> m.partitions(group).owned().size())
			.description("Partitions of the group this node owns")
			.tags("group", group)
			.register(this.registry);
		moves(group, "assigned");
		moves(group, "revoked");
		handOff(group);
	}

	void onEvent(MembershipEvent event) {
		if (event instanceof PartitionAssignedEvent assigned) {
			moves(assigned.group(), "assigned").increment();
		}
		else if (event instanceof PartitionRevokedEvent revoked) {
			// a hand-over overtaken by a fault is said twice: one move
			if (this.handingOver.putIfAbsent(key(revoked.group(), revoked.partition(), revoked.epoch()),
					System.nanoTime()) == null) {
				moves(revoked.group(), "revoked").increment();
			}
		}
		else if (event instanceof PartitionReleasedEvent released) {
			Long began = this.handingOver.remove(key(released.group(), released.partition(), released.epoch()));
			if (began != null) {
				handOff(released.group()).record(System.nanoTime() - began, TimeUnit.NANOSECONDS);
			}
		}
		if (this.handingOver.size() > 100_000) {
			// revoked but never released here (a crash of the lease): bounded all the
			// same
			this.handingOver.clear();
		}
	}

	private Counter moves(String group, String direction) {
		return Counter.builder("membership.partitions.moves")
			.description("Partitions assigned to or revoked from this node")
			.tags("group", group, "direction", direction)
			.register(this.registry);
	}

	private Timer handOff(String group) {
		return Timer.builder("membership.partitions.handoff")
			.description("From a partition's revocation here (its drain began) to the release of its lease")
			.tags("group", group)
			.register(this.registry);
	}

	private static String key(String group, int partition, long epoch) {
		return group + "#" + partition + "#" + epoch;
	}

}
