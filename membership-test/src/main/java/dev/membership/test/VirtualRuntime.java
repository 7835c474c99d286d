package dev.membership.test;

import java.time.Duration;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.spi.NodeRuntime;

/**
 * The runtime of one node of a {@link SimulatedCluster}: its four lanes, all on the
 * cluster's {@link VirtualDriver}.
 */
final class VirtualRuntime implements NodeRuntime {

	private static final Logger log = LoggerFactory.getLogger(VirtualRuntime.class);

	private final VirtualDriver driver;

	private final VirtualLane loop;

	private final VirtualLane watchdog;

	private final VirtualLane reactions;

	private final VirtualLane application;

	VirtualRuntime(VirtualDriver driver) {
		this.driver = driver;
		this.loop = new VirtualLane(driver);
		this.watchdog = new VirtualLane(driver);
		this.reactions = new VirtualLane(driver);
		this.application = new VirtualLane(driver);
	}

	@Override
	public Lane loop() {
		return this.loop;
	}

	@Override
	public Lane watchdog() {
		return this.watchdog;
	}

	@Override
	public Lane reactions() {
		return this.reactions;
	}

	@Override
	public Lane application() {
		return this.application;
	}

	@Override
	public void shutdown() {
		this.loop.halt();
		this.watchdog.halt();
		this.reactions.shutdown();
		this.application.shutdown();
	}

	@Override
	public void awaitEvents(Duration timeout) {
		// events are due now: they run before the driver goes idle
		try {
			this.driver.awaitIdle(timeout);
		}
		catch (IllegalStateException ex) {
			log.warn("Events of a stopping simulated node did not finish within {}", timeout);
		}
		this.reactions.halt();
		this.application.halt();
	}

	@Override
	public void halt() {
		this.loop.halt();
		this.watchdog.halt();
		this.reactions.halt();
		this.application.halt();
	}

	/**
	 * One lane of a node: refuses new work once shut down, and drops what it holds when
	 * halted.
	 */
	private static final class VirtualLane implements NodeRuntime.Lane, VirtualScheduler.Owner {

		private final VirtualDriver driver;

		volatile boolean accepting = true;

		volatile boolean dropped;

		VirtualLane(VirtualDriver driver) {
			this.driver = driver;
		}

		@Override
		public boolean execute(Runnable work) {
			return this.accepting && this.driver.submit(this, 0, work) != null;
		}

		@Override
		public NodeRuntime.@Nullable Timer schedule(Runnable work, long delayNanos) {
			VirtualScheduler.Event event = this.accepting ? this.driver.submit(this, delayNanos, work) : null;
			return (event != null) ? event::cancel : null;
		}

		@Override
		public boolean isDead() {
			return this.dropped;
		}

		@Override
		public boolean isPaused() {
			return false;
		}

		@Override
		public void defer(VirtualScheduler.Event event) {
			throw new IllegalStateException("A lane of the simulated cluster never pauses");
		}

		@Override
		public boolean isCurrent() {
			return this.driver.isRunning(this);
		}

		void shutdown() {
			this.accepting = false;
		}

		void halt() {
			this.accepting = false;
			this.dropped = true;
		}

	}

}
