package dev.membership.engine.lease;

import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.membership.engine.election.GroupElection;
import dev.membership.engine.term.Term;
import dev.membership.spi.FireMark;

/**
 * What rides on this node's lease writes: the marks of the scheduled fires of the unit a
 * lease is of. The fires keep them; the lease's writers carry them: a take-over hands in
 * what the lease recorded, a renewal writes what changed since the last write, a release
 * what the next term inherits. On the loop.
 */
public interface LeaseMarks {

	/** A term of {@code unit} began, its lease carrying {@code inherited}. */
	void termBegan(GroupElection unit, Term term, List<FireMark> inherited);

	/**
	 * What the renewal of {@code lease} under {@code epoch} writes (null: nothing
	 * changed, or not the term the marks are of).
	 */
	@Nullable List<FireMark> toRenew(String lease, long epoch);

	/** The version of {@code lease}'s marks that {@link #toRenew} answered with. */
	long version(String lease);

	/** A write of {@code lease}'s marks at {@code version} landed. */
	void written(String lease, long version);

	/**
	 * What the release of {@code lease}'s term {@code epoch} writes (null: the lease
	 * keeps what it has).
	 */
	@Nullable List<FireMark> toRelease(String lease, long epoch);

}
