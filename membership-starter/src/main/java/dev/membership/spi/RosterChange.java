package dev.membership.spi;

import java.util.List;

import dev.membership.liveness.Member;

/**
 * One write of the roster as a difference, so that a member one or a few versions behind catches up without reading
 * the whole list: applied to the roster of version {@code fromVersion}, it gives the roster of the next change's
 * {@code fromVersion} (or, for the last change, of the roster's version). {@code upserted}: members new or changed
 * (by node id and incarnation); {@code removed}: members gone from the list.
 */
public record RosterChange(long fromVersion, List<Member> upserted, List<Member> removed) {

	public RosterChange {
		upserted = (upserted != null) ? List.copyOf(upserted) : List.of();
		removed = (removed != null) ? List.copyOf(removed) : List.of();
	}

}
