package dev.membership.engine.leaving;

import java.util.Collection;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.membership.engine.election.GroupElection;
import dev.membership.engine.lease.LeaseReleases;
import dev.membership.engine.loop.LoopJob;
import dev.membership.engine.loop.NodeLoop;
import dev.membership.engine.term.DrainWait;
import dev.membership.engine.term.Term;
import dev.membership.engine.term.Unit;
import dev.membership.leadership.RevocationReason;
import dev.membership.spi.MembershipSettings;
import dev.membership.spi.NodeRuntime;

/**
 * A unit's graceful hand-over while the node stays: no new leader-only work of it starts,
 * work that asked to be interrupted is, and the lease stays renewed while the rest
 * finishes (at most the drain timeout); only then does the belief end and the lease get
 * released, so that the next leader never starts while this one's work still runs. The
 * ways a unit leaves differ in their reason, their hold-off and whom the release names as
 * successor: a resign, an operator's hand-over to a node, a hung run, a move by the
 * placement, an operator's drain. The node's own stop is {@link GracefulStop}'s. Called
 * from any thread: what must happen at once (no new work) happens on the caller's; the
 * rest on the loop.
 */
public final class UnitHandOver {

	private final MembershipSettings settings;

	private final NodeRuntime runtime;

	private final NodeLoop loop;

	private final LeaseReleases farewell;

	private final Supplier<Collection<GroupElection>> groups;

	/** The node the placement puts a unit on now, as this node last read it. */
	private final Function<Unit, @Nullable String> placedOwner;

	/**
	 * Who should take a unit over when this node leaves, as this node knows the members;
	 * null: anyone.
	 */
	private final Function<Unit, @Nullable String> successorOnLeave;

	public UnitHandOver(MembershipSettings settings, NodeRuntime runtime, NodeLoop loop, LeaseReleases farewell,
			Supplier<Collection<GroupElection>> groups, Function<Unit, @Nullable String> placedOwner,
			Function<Unit, @Nullable String> successorOnLeave) {
		this.settings = settings;
		this.runtime = runtime;
		this.loop = loop;
		this.farewell = farewell;
		this.groups = groups;
		this.placedOwner = placedOwner;
		this.successorOnLeave = successorOnLeave;
	}

	/**
	 * Resigns {@code group}: drains, then ends the belief, releases the lease and stays
	 * out of the race a while.
	 */
	public void resign(GroupElection group) {
		handOver(group, RevocationReason.RESIGNED, holdOff(), (unit) -> null);
	}

	/**
	 * An operator hands {@code group} to the node {@code to}: as a resign, naming
	 * {@code to} as the successor, so that it alone takes the lease over from this term
	 * at once.
	 */
	public void handTo(GroupElection group, String to) {
		handOver(group, RevocationReason.RESIGNED, holdOff(), (unit) -> to);
	}

	private long holdOff() {
		return this.settings.renewalInterval().multipliedBy(2).toNanos();
	}

	/**
	 * Hands {@code unit} over because a run of its hangs: as a resign, with the hold-off.
	 */
	void hung(GroupElection unit) {
		handOver(unit, RevocationReason.HUNG, holdOff(), (u) -> null);
	}

	/**
	 * Hands {@code unit} over because the placement put it on another node: as a resign,
	 * without the hold-off.
	 */
	void move(GroupElection unit) {
		// a move names where it goes, as this node's placement says now: a node that has
		// not read the new placement yet must not take it on the way
		handOver(unit, RevocationReason.MOVED, 0, this.placedOwner);
	}

	/**
	 * An operator drained this node: hands every unit it holds over, each after its
	 * drain, to the node that takes it when this one leaves. From any thread, any number
	 * of times.
	 */
	public void drainOut() {
		for (GroupElection unit : this.groups.get()) {
			handOver(unit, RevocationReason.DRAINED, 0, this.successorOnLeave);
		}
	}

	/**
	 * The drain, then the release naming {@code successor}'s answer for the unit (null:
	 * nobody in particular).
	 */
	private void handOver(GroupElection group, RevocationReason reason, long holdOffNanos,
			Function<Unit, @Nullable String> successor) {
		Term term = group.term();
		if (term == null || !term.isValid() || term.isEnding()) {
			return;
		}
		// from now on no new work of the group starts here
		CompletableFuture<Void> drained = term.handOver();
		group.events().handingOver(term.epoch(), reason);
		this.loop.submit(LoopJob.of(reason + " of " + group.name(), () -> {
			if (group.resigned(term, reason, holdOffNanos)) {
				whenDrained(group.name(), term, drained,
						() -> this.loop.submit(LoopJob.of("end of the term of " + group.name(), () -> {
							Long epoch = group.drained(term);
							if (epoch != null) {
								this.loop.submit(this.farewell.release(group, epoch, successor.apply(group.unit())));
							}
						})));
			}
		}));
	}

	/**
	 * Runs {@code then} once {@code drained} completed or the drain timeout passed,
	 * whichever comes first (at once, here, when it did already).
	 */
	private void whenDrained(String group, Term term, CompletableFuture<Void> drained, Runnable then) {
		DrainWait
			.orTimeout(this.runtime, this.settings, drained,
					() -> DrainWait.warnTimedOut(this.settings, group, drained, term))
			.thenRun(then);
	}

}
