package dev.membership.scheduling;

import java.lang.reflect.Method;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.Environment;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.function.SingletonSupplier;

import dev.membership.Membership;
import dev.membership.spi.FirePolicy;

/**
 * Adds the per-partition runs to beans with {@link ForEachOwnedPartition} methods, and
 * fails startup when such a method returns a value, takes parameters, names a group that
 * is not a partitioned group of this node, or could not work as written
 * ({@link GuardChecks}).
 */
public class ForEachOwnedPartitionBeanPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor
		implements SmartInitializingSingleton, EnvironmentAware, DisposableBean {

	private final Supplier<@Nullable Membership> membership;

	/** Method description to its group. */
	private final Map<String, String> methods = new TreeMap<>();

	private final GuardChecks checks = new GuardChecks("ForEachOwnedPartition");

	private final GuardedJobs jobs = new GuardedJobs();

	private @Nullable Environment environment;

	private final ForEachOwnedPartitionInterceptor interceptor;

	public ForEachOwnedPartitionBeanPostProcessor(Supplier<@Nullable Membership> membership) {
		this.membership = membership;
		this.interceptor = new ForEachOwnedPartitionInterceptor(
				SingletonSupplier.of(() -> GuardChecks.registry(membership.get())), this.jobs);
		this.advisor = new DefaultPointcutAdvisor(
				new AnnotationMatchingPointcut(null, ForEachOwnedPartition.class, true), this.interceptor);
		setProxyTargetClass(true); // @Scheduled methods are found on the class
		setBeforeExistingAdvisors(true);
	}

	/**
	 * The methods whose fires are the cluster's ({@code @Scheduled} with a cron or fixed
	 * rate), per partition.
	 */
	private final List<FiredMethod> fired = new CopyOnWriteArrayList<>();

	/** Whether {@link #firedMethods()} was read: the scheduled tasks were configured. */
	private volatile boolean read;

	/**
	 * The methods whose fires are the cluster's, each partition's once, with the beans
	 * (proxies) they are called on.
	 */
	public List<FiredMethod> firedMethods() {
		this.read = true;
		return List.copyOf(this.fired);
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		Class<?> type = AopUtils.getTargetClass(bean);
		Map<Method, ForEachOwnedPartition> annotated = new LinkedHashMap<>();
		ReflectionUtils.doWithMethods(type, (method) -> {
			ForEachOwnedPartition annotation = AnnotatedElementUtils.findMergedAnnotation(method,
					ForEachOwnedPartition.class);
			if (annotation != null) {
				String name = type.getSimpleName() + "." + method.getName();
				this.checks.guarded(method, name);
				check(method, name);
				this.jobs.bean(type, beanName);
				// fails now if wrong
				this.jobs.maxRunTime(annotation.maxRunTime(), "ForEachOwnedPartition", name);
				if (annotation.concurrency() < 1) {
					throw new GuardMisuseException(
							"@ForEachOwnedPartition method " + name + " has concurrency " + annotation.concurrency()
									+ ": at least one partition must run at a time.",
							"Set concurrency to 1 (one partition after another, the default) or more.");
				}
				synchronized (this.methods) {
					this.methods.put(name, annotation.group());
				}
				annotated.put(method, annotation);
			}
		}, ReflectionUtils.USER_DECLARED_METHODS);
		Object guarded = super.postProcessAfterInitialization(bean, beanName);
		annotated.forEach((method, annotation) -> {
			String name = type.getSimpleName() + "." + method.getName();
			FirePolicy policy = this.jobs.firePolicy(method, GuardedJobs.FireAsked.of(annotation), true, name);
			if (policy != null && this.read) {
				// a lazy bean, made after the scheduled tasks were configured: Spring's
				// scheduler has its task
				GuardedJobs.eachNodesFires(name, "a lazy bean");
			}
			else if (policy != null) {
				// the bean's own name: each bean of a class fires apart, with a ledger of
				// its own
				this.fired.add(new FiredMethod(guarded, method, annotation.group(), beanName + "#" + method.getName(),
						policy, annotation.concurrency()));
			}
		});
		return guarded;
	}

	/** Stops the threads that run partitions in parallel, with the context. */
	@Override
	public void destroy() {
		this.interceptor.close();
	}

	private static void check(Method method, String name) {
		boolean reactive = ForEachOwnedPartitionInterceptor.REACTOR_PRESENT
				&& ReactiveLeaderOnly.forReturnType(method.getReturnType()) != null;
		if ((method.getReturnType() != void.class && !reactive) || method.getParameterCount() != 0) {
			throw new GuardMisuseException("@ForEachOwnedPartition method " + name + " returns a value or takes "
					+ "parameters: it runs once per owned partition, with the partition's term in LeaderContext, so "
					+ "there is no one value to return and nothing to pass.",
					"Make " + name + " return void (or a "
							+ "reactive type, subscribed once per partition) and take no parameters.");
		}
	}

	@Override
	public void setEnvironment(Environment environment) {
		this.environment = environment;
		this.jobs.environment(environment);
	}

	@Override
	public void afterSingletonsInstantiated() {
		this.checks.schedulingEnabled(this.beanFactory, this.environment);
		Membership m = this.membership.get();
		if (m == null) {
			// membership is off: the node owns nothing, so the methods never run (nothing
			// to check against)
			return;
		}
		this.checks.registers(m);
		synchronized (this.methods) {
			this.methods.forEach((name, group) -> {
				if (!m.partitionedGroups().contains(group)) {
					throw new GuardMisuseException(
							"@ForEachOwnedPartition method " + name + " names group '" + group
									+ "', which is not a partitioned group of this node, so it would never run.",
							"Set membership.partitions." + group + "=<count> (the number of partitions, the same on "
									+ "every node), or use @LeaderOnly(group = \"" + group + "\") for a plain group.");
				}
			});
		}
	}

}
