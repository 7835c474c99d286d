package dev.membership.spi;

import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.membership.liveness.Member;

/**
 * One write of the roster as a difference, so that a member one or a few versions behind
 * catches up without reading the whole roster: applied to the roster of version
 * {@code fromVersion}, it gives the roster of the next change's {@code fromVersion} (or,
 * for the last change, of the roster's version). {@code upserted}: members new or changed
 * (by node id and incarnation); {@code removed}: members gone from the list;
 * {@code placed}: what the write changed in the placements, or null when the writer did
 * not record it (then a member reads the whole roster instead).
 */
public record RosterChange(long fromVersion, List<Member> upserted, List<Member> removed,
		@Nullable List<PlacementChange> placed) {

	public RosterChange {
		upserted = (upserted != null) ? List.copyOf(upserted) : List.of();
		removed = (removed != null) ? List.copyOf(removed) : List.of();
		placed = (placed != null) ? List.copyOf(placed) : null;
	}

	/** A change of the member list whose placement changes were not recorded. */
	public RosterChange(long fromVersion, List<Member> upserted, List<Member> removed) {
		this(fromVersion, upserted, removed, null);
	}

}
