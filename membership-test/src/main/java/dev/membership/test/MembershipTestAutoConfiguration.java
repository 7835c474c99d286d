package dev.membership.test;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;

import dev.membership.MembershipEventListener;
import dev.membership.MembershipNode;
import dev.membership.autoconfigure.MembershipAutoConfiguration;
import dev.membership.autoconfigure.MembershipNodeCustomizer;
import dev.membership.store.MembershipStore;

/**
 * What {@link AutoConfigureMembershipTest} imports: the simulated cluster, its in-memory store in place of MongoDB, and
 * the node on the cluster's virtual time. Not in the auto-configuration imports: only a test that asks gets it.
 */
@AutoConfiguration(before = MembershipAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "membership.enabled", matchIfMissing = true)
public class MembershipTestAutoConfiguration {

	@Bean
	SimulatedCluster simulatedCluster(ObjectProvider<MembershipNode> node) {
		SimulatedCluster cluster = new SimulatedCluster();
		cluster.bind(node::getObject);
		return cluster;
	}

	/** Primary: the MongoDB store, or one the application defines, stays out of a test that asked for this one. */
	@Bean
	@Primary
	MembershipStore simulatedClusterMembershipStore(SimulatedCluster cluster) {
		return cluster.store();
	}

	@Bean
	MembershipNodeCustomizer simulatedClusterNodeCustomizer(SimulatedCluster cluster) {
		return (builder) -> builder.clock(cluster.clock()).runtime(cluster.runtime());
	}

	@Bean
	MembershipEventListener simulatedClusterEventRecorder(SimulatedCluster cluster) {
		return cluster::record;
	}

}
