package dev.membership.spi;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

import dev.membership.liveness.Member;

/**
 * The roster a store keeps: the live members, the recent changes, and the keeper's
 * placement of every group, written by the leader of the default group alone (fenced by
 * its epoch). Part of {@link MembershipStore}; checked by {@code RosterContract} in
 * {@code membership-test}.
 */
public interface RosterStore {

	/**
	 * The whole roster, member list included: for a member too far behind for the recent
	 * changes.
	 */
	Optional<Roster> findRoster();

	/**
	 * Replaces the roster with {@code members} and its recent {@code changes} and
	 * increments its version, if the roster was last written with an older epoch, or with
	 * {@code epoch} and a smaller {@code sequence} (the keeper's own count of its
	 * writes): a deposed keeper, or a write of this keeper that reaches the store after a
	 * later one, changes nothing. Returns the new version, or empty when fenced off. The
	 * caller holds the default group's lease with {@code epoch}. The roster also carries
	 * the keeper's placement of every group ({@code assignments}); members catch up on it
	 * by the changes' {@link RosterChange#placed()}, which the store keeps as given.
	 */
	OptionalLong writeRoster(List<Member> members, List<RosterChange> changes, Map<String, GroupAssignment> assignments,
			String keeperNodeId, long epoch, long sequence);

	/** {@link #writeRoster(List, List, Map, String, long, long)} without placements. */
	default OptionalLong writeRoster(List<Member> members, List<RosterChange> changes, String keeperNodeId, long epoch,
			long sequence) {
		return writeRoster(members, changes, Map.of(), keeperNodeId, epoch, sequence);
	}

}
