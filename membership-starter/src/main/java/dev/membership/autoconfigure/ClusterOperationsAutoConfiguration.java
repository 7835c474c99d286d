package dev.membership.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.membership.engine.MembershipNode;
import dev.membership.operations.ClusterOperations;

/**
 * What operators tell the cluster to do through this node, each recorded with who asked:
 * the node's own operations, where the broadcast (which carries a command to the node
 * that acts on it) is off. After the broadcast's configuration, whose relay is the
 * {@link ClusterOperations} where it is on.
 */
@AutoConfiguration(after = { MembershipAutoConfiguration.class, BroadcastAutoConfiguration.class })
@ConditionalOnBooleanProperty(name = "membership.enabled", matchIfMissing = true)
public final class ClusterOperationsAutoConfiguration {

	@Bean
	@ConditionalOnBean(MembershipNode.class)
	@ConditionalOnMissingBean
	ClusterOperations clusterOperations(MembershipNode node) {
		return node.operations();
	}

}
