package dev.membership.operations;

/**
 * The commands an operator gives the cluster through this node, each with a typed request
 * that says who asked. {@code /actuator/cluster}'s write operations map onto these one to
 * one ({@code POST /actuator/cluster/<action>}); a Java caller (an admin console, a test)
 * calls them on the {@code ClusterOperations} bean. Every command is carried out with the
 * drain, epochs and fences of every other hand-over, returns at once, and is recorded
 * with who asked in the run history ({@code operator#<action>}) and in one INFO line of
 * this node's log, refusals included.
 * <p>
 * The starter's bean, where the broadcast is on, carries a command to the node that acts
 * on it (the group's leader, the partition's owner, the coordinator), so a command may be
 * sent to any node; the answer, or the refusal, is that node's. A command that cannot be
 * carried out throws {@link IllegalArgumentException} with what to do instead, and
 * changes nothing.
 */
public interface ClusterOperations {

	/**
	 * Gives up the leadership of a plain group: no new leader-only work of the group
	 * starts from now on, work that asked to be interrupted is, and once the rest has
	 * finished (at most the drain timeout) the belief ends and the lease is released, so
	 * that another node takes over; this node then stays out of the race for two renewal
	 * intervals. With no leader-only work running, the belief has ended when it returns.
	 * @return {@code resigned} false when this node competes for the group but does not
	 * lead it
	 * @throws IllegalArgumentException when this node does not compete for the group, or
	 * it is partitioned (release one of its partitions)
	 */
	ResignResult resign(Resign request);

	/**
	 * Gives one partition up, as {@link #resign} gives up a group; another node takes it
	 * when the placement lets it (the coordinator may place it here again later).
	 * @return {@code resigned} false when this node did not own it
	 * @throws IllegalArgumentException when this node has no such partitioned group, or
	 * no such partition
	 */
	ResignResult release(Release request);

	/**
	 * Drains this node, for maintenance or before a deploy: it hands over every group and
	 * partition it holds (each after its leader-only work drained, to the node that would
	 * take it if this one left) and takes none until {@link #undrain}, while it stays up,
	 * a live member, and answers. The placement puts nothing on it meanwhile. Idempotent.
	 * Leadership events say {@code DRAINED}.
	 */
	DrainResult drain(Drain request);

	/**
	 * Undoes {@link #drain}: the node competes again, and the placement gives it its
	 * share. Idempotent. A node the application's readiness drained
	 * ({@code membership.follow-readiness}) stays drained until it is ready again.
	 */
	DrainResult undrain(Undrain request);

	/**
	 * Hands a plain group this node leads to a live member that competes for it: as
	 * {@link #resign} (the drain, then the release), naming it the successor, which takes
	 * the lease over at once when told (over the broadcast; without it, at its next read,
	 * where another node may take it first).
	 * @throws IllegalArgumentException when this node does not lead the group (the
	 * message names the leader), or the node is not a live member that competes for it
	 */
	HandOverResult handOver(HandOver request);

	/**
	 * On the coordinator (the leader of the default group): at its next placement (within
	 * a renewal interval) the partition goes to the named live member, whose owner hands
	 * it over after its drain; a pin it had comes off, and the placement may later move
	 * it on to balance the group.
	 * @throws IllegalArgumentException when this node does not coordinate (the message
	 * names the coordinator), the partition does not exist, or the node is not a live
	 * member taking part in the group
	 */
	PlacementResult move(Move request);

	/**
	 * As {@link #move}, and the coordinator keeps the partition there while that node is
	 * live and takes part, until {@link #unpin}; kept in the roster, so a new coordinator
	 * keeps it too.
	 */
	PlacementResult pin(Pin request);

	/**
	 * On the coordinator: takes the pin off a partition; the placement may move it again.
	 */
	PlacementResult unpin(Unpin request);

	/**
	 * On the coordinator: until the pause ends or {@link #resume}, the placement moves
	 * nothing but the units of members that left or died, so that a rolling restart or a
	 * maintenance window reshuffles nothing; nodes that join meanwhile get their share
	 * once it ends. Kept in the roster: a new coordinator keeps it.
	 * @return when it ends, by the database's clock
	 * @throws IllegalArgumentException when this node does not coordinate, or for a
	 * duration of nothing or beyond an hour
	 */
	PauseResult pause(Pause request);

	/** On the coordinator: ends a pause of rebalancing at its next placement. */
	PauseResult resume(Resume request);

}
