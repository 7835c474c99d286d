package dev.membership.autoconfigure;

import java.time.Duration;

/** How the coordinator rebalances partitioned groups. */
public class RebalanceProperties {

	/**
	 * How many of a partitioned group's partitions a rebalance moves per interval, in
	 * percent of them (at least one partition), 1 to 100 (no limit). Moves away from
	 * departed members and operators' moves are never limited.
	 */
	private int maxMovesPercent = 10;

	/**
	 * How long a member that stopped keeps its place in the placement, so that it finds
	 * its partitions again when it comes back under the same node id (set
	 * membership.node-id to a stable id, such as a StatefulSet's pod name): its
	 * partitions are released after the drain and wait, unowned, meanwhile; a member gone
	 * longer (a crashed one too) has them moved. 0 (the default) moves them at once.
	 */
	private Duration restartGrace = Duration.ZERO;

	public Duration getRestartGrace() {
		return this.restartGrace;
	}

	public void setRestartGrace(Duration restartGrace) {
		this.restartGrace = restartGrace;
	}

	public int getMaxMovesPercent() {
		return this.maxMovesPercent;
	}

	public void setMaxMovesPercent(int maxMovesPercent) {
		this.maxMovesPercent = maxMovesPercent;
	}

}
