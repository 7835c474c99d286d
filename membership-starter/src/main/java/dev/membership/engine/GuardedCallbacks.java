package dev.membership.engine;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.spi.ElectionMetrics;
import dev.membership.spi.LeadershipObserver;

/**
 * The metrics and leadership observers a node is given, as the engine calls them: each in turn, and what one throws is
 * logged (its first failure with the stack trace, later ones at debug) and goes no further, so that a term that began
 * is armed to end, a renewal moves its deadline and a reply's job goes on whatever that code does.
 */
final class GuardedCallbacks {

	private static final Logger log = LoggerFactory.getLogger(MembershipNode.class);

	private GuardedCallbacks() {
	}

	static ElectionMetrics metrics(List<ElectionMetrics> all) {
		List<Guarded<ElectionMetrics>> each = all.stream().map((m) -> new Guarded<>("metrics", m)).toList();
		return new ElectionMetrics() {

			@Override
			public void acquisition(String group, AcquisitionOutcome outcome) {
				each.forEach((m) -> m.call("acquisition", (target) -> target.acquisition(group, outcome)));
			}

			@Override
			public void renewal(String group, RenewalOutcome outcome) {
				each.forEach((m) -> m.call("renewal", (target) -> target.renewal(group, outcome)));
			}

			@Override
			public void clockJumped(Duration jump) {
				each.forEach((m) -> m.call("clockJumped", (target) -> target.clockJumped(jump)));
			}

			@Override
			public void runsDropped(long count) {
				each.forEach((m) -> m.call("runsDropped", (target) -> target.runsDropped(count)));
			}

		};
	}

	static LeadershipObserver observer(List<LeadershipObserver> all) {
		List<Guarded<LeadershipObserver>> each = all.stream()
			.map((o) -> new Guarded<>("leadership observer", o))
			.toList();
		return new LeadershipObserver() {

			@Override
			public void started(String nodeId, String group, long epoch, long atNanos) {
				each.forEach((o) -> o.call("started", (target) -> target.started(nodeId, group, epoch, atNanos)));
			}

			@Override
			public void ended(String nodeId, String group, long epoch, long atNanos) {
				each.forEach((o) -> o.call("ended", (target) -> target.ended(nodeId, group, epoch, atNanos)));
			}

		};
	}

	/** One callback, and whether its failures were warned of yet. */
	private static final class Guarded<T> {

		private final String kind;

		private final T target;

		private final AtomicBoolean warned = new AtomicBoolean();

		Guarded(String kind, T target) {
			this.kind = kind;
			this.target = target;
		}

		void call(String method, Consumer<T> call) {
			try {
				call.accept(this.target);
			}
			catch (VirtualMachineError err) {
				throw err; // out of memory, a stack overflow: not the callback's own failure
			}
			catch (Throwable ex) {
				if (this.warned.compareAndSet(false, true)) {
					log.warn("The {} {} threw from {} (ignored; later failures are logged at debug)", this.kind,
							this.target.getClass().getName(), method, ex);
				}
				else {
					log.debug("The {} {} threw from {} (ignored): {}", this.kind, this.target.getClass().getName(),
							method, ex.toString());
				}
			}
		}

	}

}
