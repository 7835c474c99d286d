package dev.membership.engine;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.spi.ElectionMetrics;
import dev.membership.spi.LeadershipObserver;

/**
 * The metrics and the leadership observer a node is given, as the engine calls them: what they throw is logged (the
 * first failure with its stack trace, later ones at debug) and goes no further, so that a term that began is armed to
 * end, a renewal moves its deadline and a reply's job goes on whatever that code does.
 */
final class GuardedCallbacks {

	private static final Logger log = LoggerFactory.getLogger(MembershipNode.class);

	private GuardedCallbacks() {
	}

	static ElectionMetrics metrics(ElectionMetrics metrics) {
		Failures failures = new Failures("metrics (" + metrics.getClass().getName() + ")");
		return new ElectionMetrics() {

			@Override
			public void acquisition(String group, AcquisitionOutcome outcome) {
				failures.guard("acquisition", () -> metrics.acquisition(group, outcome));
			}

			@Override
			public void renewal(String group, RenewalOutcome outcome) {
				failures.guard("renewal", () -> metrics.renewal(group, outcome));
			}

			@Override
			public void clockJumped(Duration jump) {
				failures.guard("clockJumped", () -> metrics.clockJumped(jump));
			}

			@Override
			public void runsDropped(long count) {
				failures.guard("runsDropped", () -> metrics.runsDropped(count));
			}

		};
	}

	static LeadershipObserver observer(LeadershipObserver observer) {
		Failures failures = new Failures("leadership observer (" + observer.getClass().getName() + ")");
		return new LeadershipObserver() {

			@Override
			public void started(String nodeId, String group, long epoch, long atNanos) {
				failures.guard("started", () -> observer.started(nodeId, group, epoch, atNanos));
			}

			@Override
			public void ended(String nodeId, String group, long epoch, long atNanos) {
				failures.guard("ended", () -> observer.ended(nodeId, group, epoch, atNanos));
			}

		};
	}

	private static final class Failures {

		private final String what;

		private final AtomicBoolean warned = new AtomicBoolean();

		Failures(String what) {
			this.what = what;
		}

		void guard(String method, Runnable call) {
			try {
				call.run();
			}
			catch (RuntimeException ex) {
				if (this.warned.compareAndSet(false, true)) {
					log.warn("The {} threw from {} (ignored; later failures are logged at debug)", this.what, method,
							ex);
				}
				else {
					log.debug("The {} threw from {} (ignored): {}", this.what, method, ex.toString());
				}
			}
		}

	}

}
