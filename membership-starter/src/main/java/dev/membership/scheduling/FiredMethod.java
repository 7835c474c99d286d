package dev.membership.scheduling;

import java.lang.reflect.Method;

import org.springframework.aop.support.AopUtils;
import org.springframework.util.ClassUtils;

import dev.membership.spi.FirePolicy;

/**
 * A {@code @LeaderOnly} or {@code @ForEachOwnedPartition} method that is
 * {@code @Scheduled} with a {@code cron} or {@code fixedRate}: its fires are the
 * cluster's, not each node's, so {@link LeaderOnlyFires} takes its task off Spring's
 * scheduler and the leader of its group (or each partition's owner) fires it.
 *
 * @param bean the bean as the application sees it (the guard's proxy), whose method a
 * fire calls
 * @param method the method, as the target class declares it
 * @param group its group
 * @param job its job ({@code bean#method})
 * @param policy how its fires are kept once each
 * @param concurrency how many of its fires run at once on this node (a partitioned
 * group's, one per partition)
 */
public record FiredMethod(Object bean, Method method, String group, String job, FirePolicy policy, int concurrency) {

	/**
	 * How Spring's scheduler names the method's task: {@code ScheduledMethodRunnable}'s
	 * name (the declaring class's), or for a reactive method the bean's class's, as
	 * {@link #taskName(String)} reads it.
	 */
	String taskName() {
		Class<?> type = reactive() ? AopUtils.getTargetClass(this.bean) : this.method.getDeclaringClass();
		return type.getName() + "." + this.method.getName();
	}

	/**
	 * Whether the method returns a reactive type: its fires subscribe to its pipeline.
	 */
	boolean reactive() {
		return GuardedJobs.isReactive(this.method.getReturnType());
	}

	/**
	 * A scheduled task's name as {@link #taskName()} gives it: a reactive method's task
	 * is named after the bean's runtime class, a proxy's when the bean is proxied
	 * ({@code Type$$SpringCGLIB$$0.method}).
	 */
	static String taskName(String name) {
		int proxy = name.indexOf(ClassUtils.CGLIB_CLASS_SEPARATOR);
		int method = name.lastIndexOf('.');
		return (proxy > 0 && method > proxy) ? name.substring(0, proxy) + name.substring(method) : name;
	}

}
