package dev.membership.engine.election;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.membership.engine.election.GroupElection.State;
import dev.membership.engine.events.EventDispatch;
import dev.membership.engine.term.Runs;
import dev.membership.engine.term.Term;
import dev.membership.engine.term.Unit;
import dev.membership.event.MembershipEvent;
import dev.membership.leadership.LeaderChangedEvent;
import dev.membership.leadership.LeaderElectedEvent;
import dev.membership.leadership.LeaderRevokedEvent;
import dev.membership.leadership.RevocationReason;
import dev.membership.spi.Holder;
import dev.membership.spi.LeadershipObserver;
import dev.membership.spi.LeaseRecord;
import dev.membership.spi.NodeRuntime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * One group's election state machine, driven by hand: its transitions, and that only the
 * loop moves it.
 */
class GroupElectionTests {

	private static final long SECOND = Duration.ofSeconds(1).toNanos();

	private static final Instant EXPIRES = Instant.parse("2026-11-23T12:00:15Z");

	private final AtomicLong now = new AtomicLong(100 * SECOND);

	private final AtomicBoolean onLoop = new AtomicBoolean(true);

	private final List<MembershipEvent> events = new ArrayList<>();

	private final List<Runnable> watchdogTimers = new ArrayList<>();

	private final GroupElection election = new GroupElection(Unit.group("reports"), "a", this.now::get, new Runtime(),
			new EventDispatch(new Runtime(), this.events::add), LeadershipObserver.none(), Runs.none(this.now::get));

	private static LeaseRecord lease(long epoch) {
		return new LeaseRecord("reports", new Holder("a", "a-1", "a:8080"), epoch, EXPIRES, EXPIRES, EXPIRES);
	}

	private Term lead(long epoch) {
		assertThat(this.election.acquired(lease(epoch), this.now.get() + 10 * SECOND, EXPIRES, "a:8080")).isTrue();
		return this.election.term();
	}

	private List<RevocationReason> revocations() {
		return this.events.stream()
			.filter(LeaderRevokedEvent.class::isInstance)
			.map((e) -> ((LeaderRevokedEvent) e).reason())
			.toList();
	}

	@Test
	void aGrantedLeaseStartsATermAndSaysSo() {
		Term term = lead(7);
		assertThat(this.election.state()).isEqualTo(State.LEADING);
		assertThat(term.isValid()).isTrue();
		assertThat(this.events).containsExactly(new LeaderChangedEvent("a", "reports", null, "a", 7),
				new LeaderElectedEvent("a", "reports", 7));
	}

	@Test
	void aLeaseGrantedPastItsDeadlineStartsNothing() {
		assertThat(this.election.acquired(lease(7), this.now.get() - 1, EXPIRES, "a:8080")).isFalse();
		assertThat(this.election.state()).isEqualTo(State.FOLLOWING);
		assertThat(this.events).isEmpty();
	}

	@Test
	void aLostLeaseEndsTheTerm() {
		Term term = lead(7);
		this.election.lost(term);
		assertThat(this.election.state()).isEqualTo(State.FOLLOWING);
		assertThat(term.isValid()).isFalse();
		assertThat(revocations()).containsExactly(RevocationReason.LEASE_LOST);
	}

	@Test
	void aPassedDeadlineEndsTheTermOnceWhetherTheWatchdogOrTheLoopSeesItFirst() {
		Term term = lead(7);
		this.now.addAndGet(10 * SECOND);
		assertThat(term.isValid()).isFalse();
		this.onLoop.set(false);
		// the watchdog, off the loop
		new ArrayList<>(this.watchdogTimers).forEach(Runnable::run);
		this.onLoop.set(true);
		// the loop settles what the watchdog ended
		assertThat(this.election.state()).isEqualTo(State.FOLLOWING);
		assertThat(revocations()).containsExactly(RevocationReason.RENEWAL_DEADLINE_PASSED);
	}

	@Test
	void aRenewalMovesTheDeadline() {
		Term term = lead(7);
		this.election.renewed(term, this.now.get() + 20 * SECOND, EXPIRES);
		this.now.addAndGet(15 * SECOND);
		assertThat(this.election.state()).isEqualTo(State.LEADING);
		assertThat(term.isValid()).isTrue();
	}

	@Test
	void aResignDrainsThenEndsTheTermAndHoldsOff() {
		Term term = lead(7);
		term.handOver();
		assertThat(this.election.resigned(term, RevocationReason.RESIGNED, 10 * SECOND)).isTrue();
		assertThat(this.election.state()).isEqualTo(State.HANDING_OVER);
		assertThat(term.isValid()).isTrue();
		assertThat(this.election.drained(term)).isEqualTo(7L);
		assertThat(this.election.state()).isEqualTo(State.HOLDING_OFF);
		assertThat(revocations()).containsExactly(RevocationReason.RESIGNED);
		assertThat(this.election.holdOffUntil(this.now.get())).isEqualTo(this.now.get() + 10 * SECOND);
		this.now.addAndGet(10 * SECOND);
		assertThat(this.election.holdOffUntil(this.now.get())).isNull();
		assertThat(this.election.state()).isEqualTo(State.FOLLOWING);
	}

	@Test
	void aTermLostWhileHandingOverEndsTheResignAndStillHoldsOff() {
		Term term = lead(7);
		this.election.resigned(term, RevocationReason.RESIGNED, 10 * SECOND);
		this.election.lost(term);
		assertThat(this.election.state()).isEqualTo(State.HOLDING_OFF);
		assertThat(this.election.drained(term)).isNull();
		assertThat(revocations()).containsExactly(RevocationReason.LEASE_LOST);
	}

	@Test
	void aHandOverAskedForATermThatEndedLeavesTheNextTermAlone() {
		Term old = lead(7);
		// asked off the loop; the term's deadline passes before the loop gets to it
		old.handOver();
		this.election.lost(old);
		Term next = lead(8);
		assertThat(this.election.resigned(old, RevocationReason.DRAINED, 10 * SECOND)).isFalse();
		assertThat(this.election.state()).isEqualTo(State.LEADING);
		next.handOver();
		assertThat(this.election.resigned(next, RevocationReason.MOVED, 0)).as("the next term's own hand-over")
			.isTrue();
		assertThat(this.election.drained(next)).isEqualTo(8L);
	}

	@Test
	void aLeaseGrantedInTheOldClockIsDeclinedAndHeldOff() {
		this.election.holdOff(this.now.get() + 15 * SECOND);
		assertThat(this.election.state()).isEqualTo(State.HOLDING_OFF);
		assertThat(this.events).isEmpty();
	}

	@Test
	void theGoodbyeEndsATermStillBelievedAndStops() {
		lead(7);
		this.election.stopping();
		assertThat(this.election.state()).isEqualTo(State.HANDING_OVER);
		this.election.left();
		assertThat(this.election.state()).isEqualTo(State.STOPPED);
		assertThat(revocations()).containsExactly(RevocationReason.SHUTDOWN);
	}

	@Test
	void anIllegalTransitionThrows() {
		lead(7);
		assertThatIllegalStateException().isThrownBy(() -> lead(8)).withMessageContaining("cannot go from LEADING");
		assertThatIllegalStateException().isThrownBy(() -> this.election.holdOff(0))
			.withMessageContaining("cannot go from LEADING");
	}

	@Test
	void onlyTheLoopMovesTheStateMachine() {
		this.onLoop.set(false);
		assertThatIllegalStateException().isThrownBy(() -> lead(7)).withMessageContaining("off the loop");
		assertThatIllegalStateException().isThrownBy(this.election::state).withMessageContaining("off the loop");
	}

	/**
	 * Runs what it is given at once; keeps the watchdog's timers for the test to fire.
	 */
	private final class Runtime implements NodeRuntime {

		@Override
		public Lane loop() {
			return lane(GroupElectionTests.this.onLoop::get, false);
		}

		@Override
		public Lane watchdog() {
			return lane(() -> !GroupElectionTests.this.onLoop.get(), true);
		}

		@Override
		public Lane reactions() {
			return lane(() -> false, false);
		}

		@Override
		public Lane application() {
			return lane(() -> false, false);
		}

		private Lane lane(java.util.function.BooleanSupplier current, boolean keepTimers) {
			return new Lane() {
				@Override
				public boolean execute(Runnable task) {
					task.run();
					return true;
				}

				@Override
				public Timer schedule(Runnable task, long delayNanos) {
					if (keepTimers) {
						GroupElectionTests.this.watchdogTimers.add(task);
					}
					return () -> GroupElectionTests.this.watchdogTimers.remove(task);
				}

				@Override
				public boolean isCurrent() {
					return current.getAsBoolean();
				}
			};
		}

		@Override
		public void shutdown() {
		}

		@Override
		public void awaitEvents(Duration timeout) {
		}

		@Override
		public void halt() {
		}

	}

}
