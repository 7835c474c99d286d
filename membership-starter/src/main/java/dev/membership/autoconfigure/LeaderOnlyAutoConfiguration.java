package dev.membership.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;
import org.springframework.util.function.SingletonSupplier;

import dev.membership.Membership;
import dev.membership.scheduling.FiredMethod;
import dev.membership.scheduling.ForEachOwnedPartitionBeanPostProcessor;
import dev.membership.scheduling.LeaderOnlyBeanPostProcessor;
import dev.membership.scheduling.LeaderOnlyFires;
import dev.membership.spi.LeaderOnlyExecutionListener;

/**
 * {@code @LeaderOnly} on bean methods and classes, and {@code @ForEachOwnedPartition} on
 * bean methods. Active also with {@code membership.enabled=false}: then this node never
 * leads, so leader-only methods never run here, and the post-processor says so once at
 * startup.
 */
@AutoConfiguration(after = MembershipAutoConfiguration.class)
public final class LeaderOnlyAutoConfiguration {

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static LeaderOnlyBeanPostProcessor leaderOnlyBeanPostProcessor(ObjectProvider<Membership> membership,
			ObjectProvider<LeaderOnlyExecutionListener> listener) {
		// resolved on first use: a post-processor must not pull the node (and MongoDB) in
		// early
		return new LeaderOnlyBeanPostProcessor(SingletonSupplier.of(membership::getIfAvailable),
				SingletonSupplier.of(() -> GuardedBeans.leaderOnly(listener.orderedStream().toList())));
	}

	/**
	 * The fires of {@code @LeaderOnly} and {@code @ForEachOwnedPartition} methods
	 * {@code @Scheduled(cron, fixedRate)}, each the cluster's once (per partition for the
	 * latter).
	 */
	@Bean
	@ConditionalOnMissingBean
	LeaderOnlyFires leaderOnlyFires(ObjectProvider<LeaderOnlyBeanPostProcessor> guards,
			ObjectProvider<ForEachOwnedPartitionBeanPostProcessor> partitions, ObjectProvider<Membership> membership) {
		return new LeaderOnlyFires(() -> {
			List<FiredMethod> methods = new ArrayList<>();
			guards.ifAvailable((guard) -> methods.addAll(guard.firedMethods()));
			partitions.ifAvailable((guard) -> methods.addAll(guard.firedMethods()));
			return methods;
		}, membership::getIfAvailable);
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static ForEachOwnedPartitionBeanPostProcessor forEachOwnedPartitionBeanPostProcessor(
			ObjectProvider<Membership> membership) {
		return new ForEachOwnedPartitionBeanPostProcessor(SingletonSupplier.of(membership::getIfAvailable));
	}

}
