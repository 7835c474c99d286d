package dev.membership.spi;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;

import org.jspecify.annotations.Nullable;

/**
 * Where the units of work go: the partitions of partitioned groups, and the leaderships
 * of plain groups (a group of one partition). The coordinator places with it every
 * interval; a node that sees a unit released computes with it who takes the unit next, so
 * every node of a cluster must use the same policy. Placement is advice: a unit's lease
 * decides who owns it, so no policy can give a unit to two nodes at once.
 * {@link BalancedPlacement} unless a node is built with another (the test kit pins units
 * with one).
 */
@FunctionalInterface
public interface PlacementPolicy {

	/**
	 * The placement of every group in {@code demands}. {@code fixed} counts leaderships
	 * that are not placed (the default group's, held by the coordinator itself) toward
	 * the balance of plain leaderships. Must be a pure function of its arguments. A call
	 * that throws or answers null is logged and answered by {@link BalancedPlacement}
	 * instead.
	 */
	Map<String, GroupAssignment> place(Collection<Demand> demands, Map<String, Integer> fixed);

	/**
	 * One group to place.
	 *
	 * @param group the group's name
	 * @param partitions how many units it has (1: a plain group's leadership)
	 * @param eligible the live members that take part with that many partitions
	 * @param owners who owns each unit now (a held lease, else the last placement), null
	 * where nobody
	 */
	record Demand(String group, int partitions, SortedSet<String> eligible, List<@Nullable String> owners) {
	}

}
