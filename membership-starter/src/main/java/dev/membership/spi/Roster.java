package dev.membership.spi;

import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.membership.liveness.Member;

/**
 * The member list as the keeper of the roster (the leader of the default group) last wrote it. {@code version} grows by
 * one at every write, so members read the roster only when it changed, and then only its recent {@code changes}
 * unless they are too far behind; {@code epoch} is the keeper's term. Times are the store's; a live member's
 * {@code lastHeartbeat} is as of the write, not as of now. A roster read without its member list has {@code members}
 * empty.
 */
public record Roster(long version, @Nullable String keeperNodeId, long epoch, @Nullable Instant writtenAt, List<Member> members,
		List<RosterChange> changes) {

	/** The roster document's id among the lease documents; no group may have it as a name. */
	public static final String ID = "_roster";

	public Roster {
		members = (members != null) ? List.copyOf(members) : List.of();
		changes = (changes != null) ? List.copyOf(changes) : List.of();
	}

}
