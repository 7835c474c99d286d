package dev.membership.nemesis;

import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * Injects one fault, holds it, heals it, and returns once every node runs and is ready
 * again. A hold is longer than the lease (a second and a half to three), but for the
 * flap, which heals within a few hundred milliseconds: mid-call.
 */
final class Faults {

	private final Network network;

	private final Forwarder forwarder;

	private final Nodes nodes;

	private final SampleDatabase database;

	private final Random random;

	/** The rates a drifting node's clocks run at, one drawn per fault. */
	private final double[] driftRates;

	Faults(Network network, Forwarder forwarder, Nodes nodes, SampleDatabase database, Random random,
			double[] driftRates) {
		this.network = network;
		this.forwarder = forwarder;
		this.nodes = nodes;
		this.database = database;
		this.random = random;
		this.driftRates = driftRates;
	}

	/**
	 * Injects {@code fault} on {@code node}, holds it, heals it ({@code healed} runs
	 * then), and waits for the nodes.
	 */
	void inject(Fault fault, int node, Runnable healed) throws Exception {
		try {
			// the fault's own duration: what is measured is what the cluster does
			// meanwhile
			TimeUnit.MILLISECONDS.sleep(begin(fault, node));
		}
		finally {
			// healed even when it could not be injected whole
			heal(fault, node);
		}
		healed.run();
		for (int n = 1; n <= this.nodes.count(); n++) {
			this.nodes.awaitReady(n);
		}
	}

	/** Injects {@code fault} on {@code node}; returns how long to hold it, in ms. */
	private long begin(Fault fault, int node) throws Exception {
		long hold = 1500 + this.random.nextInt(1500);
		switch (fault) {
			case DATABASE_CUT -> this.network.cutDatabase(node);
			case PEERS_CUT -> this.network.cutPeers(node);
			case MINORITY -> {
				this.network.cutDatabase(node);
				this.network.cutPeers(node);
			}
			case MAJORITY_CUT -> {
				this.network.cutPeers(node);
				for (int other = 1; other <= this.nodes.count(); other++) {
					if (other != node) {
						this.network.cutDatabase(other);
					}
				}
			}
			case ONE_WAY -> this.network.cutToDatabase(node);
			case DELAY -> this.forwarder.delay(this.network.address(node), 250, 150);
			case LOSS -> this.network.lose(node, 33);
			case FLAP -> {
				this.network.cutDatabase(node);
				hold = 100 + this.random.nextInt(400);
			}
			case PAUSE -> this.nodes.signal(node, "STOP");
			case CRASH -> this.nodes.end(node, false);
			case STOP -> this.nodes.end(node, true);
			case CLOCK_AHEAD -> this.nodes.clock(node, 300);
			case CLOCK_BACK -> this.nodes.clock(node, -300);
			case DATABASE_PAUSE -> this.database.signal("STOP");
			case DRIFT -> {
				this.nodes.end(node, true);
				this.nodes.start(node, this.driftRates[this.random.nextInt(this.driftRates.length)]);
				this.nodes.awaitReady(node);
				// its deadline decides only what it believes when its renewals fail: a
				// node that leads nothing would test nothing. Far past the bound it sees
				// the drift as jumps and takes over no lease that was not released, and
				// the placement may hand it none: the operator's move hands it one
				if (!this.nodes.awaitBelieving(node, java.time.Duration.ofSeconds(5)) && (!this.nodes.move(0, node)
						|| !this.nodes.awaitBelieving(node, java.time.Duration.ofSeconds(15)))) {
					throw new IllegalStateException("n" + node + " led nothing within 20 s of its start at a drift"
							+ " (a partition moved to it included)");
				}
				this.network.cutDatabase(node);
				hold = 3000;
			}
			case DATABASE_RESTART -> this.database.stopServer(this.random.nextBoolean());
			case SYNC_STANDBY_FAILOVER -> {
				// the standby's copy restarts the primary: the nodes renew and write
				// through the synchronous standby again before it stops acknowledging
				this.database.standbyReady();
				this.nodes.awaitWrites(10);
				this.database.standbySignal("STOP");
			}
		}
		return hold;
	}

	private void heal(Fault fault, int node) throws Exception {
		switch (fault) {
			case DATABASE_CUT, PEERS_CUT, MINORITY, ONE_WAY, LOSS, FLAP -> this.network.heal(node);
			case MAJORITY_CUT -> {
				for (int n = 1; n <= this.nodes.count(); n++) {
					this.network.heal(n);
				}
			}
			case DELAY -> this.forwarder.heal(this.network.address(node));
			case PAUSE -> this.nodes.signal(node, "CONT");
			case CRASH, STOP -> this.nodes.start(node);
			case CLOCK_AHEAD, CLOCK_BACK -> this.nodes.clock(node, 0);
			case DATABASE_PAUSE -> this.database.signal("CONT");
			case DRIFT -> {
				this.network.heal(node);
				this.nodes.end(node, true);
				this.nodes.start(node);
			}
			case DATABASE_RESTART -> this.database.startServer();
			case SYNC_STANDBY_FAILOVER -> this.database.failOver(this.forwarder);
		}
	}

}
