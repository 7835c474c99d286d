package dev.membership.scheduling;

import java.lang.reflect.Method;

import dev.membership.spi.FirePolicy;

/**
 * A {@code @LeaderOnly} or {@code @ForEachOwnedPartition} method that is {@code @Scheduled} with a {@code cron} or
 * {@code fixedRate}: its fires are the cluster's, not each node's, so {@link LeaderOnlyFires} takes its task off
 * Spring's scheduler and the leader of its group (or each partition's owner) fires it.
 *
 * @param bean the bean as the application sees it (the guard's proxy), whose method a fire calls
 * @param method the method, as the target class declares it
 * @param group its group
 * @param job its job ({@code bean#method})
 * @param policy how its fires are kept once each
 * @param concurrency how many of its fires run at once on this node (a partitioned group's, one per partition)
 */
public record FiredMethod(Object bean, Method method, String group, String job, FirePolicy policy, int concurrency) {

	/** How Spring's scheduler names the method's task ({@code ScheduledMethodRunnable}'s name). */
	String taskName() {
		return this.method.getDeclaringClass().getName() + "." + this.method.getName();
	}

}
