package dev.membership.test;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import dev.membership.spi.BalancedPlacement;
import dev.membership.spi.GroupAssignment;
import dev.membership.spi.PlacementPolicy;

/**
 * The placement of a {@link SimulatedCluster}: the default one, but for the units a test
 * pinned on a node (a group's leadership, or one partition), as long as that node takes
 * part. Every node of the cluster uses this one instance, so the coordinator and the
 * nodes that compute a successor agree, as in production.
 */
final class PinnedPlacement implements PlacementPolicy {

	private final PlacementPolicy balanced = new BalancedPlacement();

	/** Node id by group (a leadership) or {@code group#partition}. */
	private final Map<String, String> pins = new ConcurrentHashMap<>();

	void pin(String group, String nodeId) {
		this.pins.put(group, nodeId);
	}

	void pin(String group, int partition, String nodeId) {
		this.pins.put(group + "#" + partition, nodeId);
	}

	@Override
	public Map<String, GroupAssignment> place(Collection<Demand> demands, Map<String, Integer> fixed) {
		Map<String, GroupAssignment> placed = new TreeMap<>(this.balanced.place(demands, fixed));
		for (Demand demand : demands) {
			GroupAssignment assignment = placed.get(demand.group());
			if (assignment == null) {
				continue;
			}
			List<@Nullable String> owners = new ArrayList<>(assignment.owners());
			for (int p = 0; p < owners.size(); p++) {
				String pinned = this.pins.get((demand.partitions() == 1) ? demand.group() : demand.group() + "#" + p);
				if (pinned != null && demand.eligible().contains(pinned)) {
					owners.set(p, pinned);
				}
			}
			placed.put(demand.group(), new GroupAssignment(assignment.partitions(), owners));
		}
		return placed;
	}

}
