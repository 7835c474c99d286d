package dev.membership.test;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.List;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigureOrder;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.core.Ordered;

import dev.membership.autoconfigure.MembershipAutoConfiguration;
import dev.membership.autoconfigure.MembershipNodeCustomizer;
import dev.membership.broadcast.BroadcastKeySource;
import dev.membership.broadcast.BroadcastKeyring;
import dev.membership.engine.MembershipNode;
import dev.membership.event.MembershipEventListener;
import dev.membership.spi.MembershipStore;
import dev.membership.spi.RunHistoryStore;

/**
 * What {@link AutoConfigureMembershipTest} imports: the simulated cluster, its in-memory
 * store in place of MongoDB, and the node on the cluster's virtual time. Not in the
 * auto-configuration imports: only a test that asks gets it.
 */
@AutoConfiguration(before = MembershipAutoConfiguration.class)
// before every store module too (they sort ahead of this one by name): their store, run
// history and key back off
@AutoConfigureOrder(Ordered.HIGHEST_PRECEDENCE)
@ConditionalOnBooleanProperty(name = "membership.enabled", matchIfMissing = true)
public final class MembershipTestAutoConfiguration {

	@Bean
	SimulatedCluster simulatedCluster(ObjectProvider<MembershipNode> node) {
		SimulatedCluster cluster = new SimulatedCluster();
		// none when the application defines its own Membership
		cluster.bind(node::getIfAvailable);
		return cluster;
	}

	/**
	 * Primary: the MongoDB store, or one the application defines, stays out of a test
	 * that asked for this one.
	 */
	@Bean
	@Primary
	MembershipStore simulatedClusterMembershipStore(SimulatedCluster cluster) {
		return cluster.store();
	}

	/**
	 * The run history in memory: the application's MongoDB (if any) gets no runs from a
	 * simulated node, and a test can read the runs its code made.
	 */
	@Bean
	@ConditionalOnMissingBean
	RunHistoryStore simulatedClusterRunHistory(SimulatedCluster cluster) {
		return new InMemoryRunHistory(cluster.clock().wallClock(), Duration.ofDays(7), 100);
	}

	@Bean
	MembershipNodeCustomizer simulatedClusterNodeCustomizer(SimulatedCluster cluster) {
		return (builder) -> builder.clock(cluster.clock())
			.runtime(cluster.runtime())
			.noticeChannel(cluster.noticeChannel())
			.placement(cluster.placement());
	}

	@Bean
	MembershipEventListener simulatedClusterEventRecorder(SimulatedCluster cluster) {
		return cluster::record;
	}

	/**
	 * The broadcast key of a web application's node, in memory: the key a node would
	 * otherwise keep in MongoDB, which a test need not have (and peers have no address,
	 * so nothing is sent).
	 */
	@Bean
	@ConditionalOnMissingBean
	BroadcastKeySource simulatedClusterBroadcastKeys() {
		byte[] key = new byte[32];
		new SecureRandom().nextBytes(key);
		BroadcastKeyring keyring = BroadcastKeyring.ofStrings(List.of(Base64.getEncoder().encodeToString(key)));
		return BroadcastKeySource.of(keyring);
	}

	/**
	 * Lets the node's first round finish as the context starts, so a test begins with the
	 * node leading its groups; and stops the node as the context closes, moving virtual
	 * time so that its drain timeout can pass.
	 */
	@Bean
	SmartLifecycle simulatedClusterFirstRound(SimulatedCluster cluster) {
		return new SmartLifecycle() {

			private volatile boolean running;

			@Override
			public void start() {
				cluster.firstRound();
				this.running = true;
			}

			@Override
			public void stop() {
				this.running = false;
				// just before the starter's own lifecycle, which then finds it stopped
				cluster.stopNode();
			}

			@Override
			public boolean isRunning() {
				return this.running;
			}

			@Override
			public int getPhase() {
				// after the node started
				return MembershipAutoConfiguration.LIFECYCLE_PHASE + 1;
			}

		};
	}

}
