package dev.membership.scheduling;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.ComposablePointcut;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcher;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.Environment;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.function.SingletonSupplier;

import dev.membership.spi.FirePolicy;
import dev.membership.spi.LeaderOnlyExecutionListener;
import dev.membership.Membership;

/**
 * Adds the leader-only check to beans with {@code @LeaderOnly} methods (or the annotation
 * on the class), and makes this node compete for every group those annotations name,
 * before it joins the cluster. Fails startup where the guard could not work as written
 * ({@link GuardChecks}), and for a partitioned group, which no node leads as a whole.
 */
public class LeaderOnlyBeanPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor
		implements SmartInitializingSingleton, EnvironmentAware {

	private static final Logger log = LoggerFactory.getLogger(LeaderOnlyBeanPostProcessor.class);

	private final Supplier<Membership> membership;

	private final LeaderOnlyInterceptor interceptor;

	/**
	 * The guarded methods by group, as {@code Type.method} ({@code Type.*} for a class).
	 */
	private final Map<String, Set<String>> methods = new ConcurrentSkipListMap<>();

	private final GuardChecks checks = new GuardChecks("LeaderOnly");

	private final GuardedJobs jobs = new GuardedJobs();

	/**
	 * The guarded methods whose fires are the cluster's ({@code @Scheduled} with a cron
	 * or fixed rate).
	 */
	private final List<FiredMethod> fired = new CopyOnWriteArrayList<>();

	private @Nullable Environment environment;

	public LeaderOnlyBeanPostProcessor(Supplier<Membership> membership,
			Supplier<LeaderOnlyExecutionListener> listener) {
		this.membership = membership;
		this.interceptor = new LeaderOnlyInterceptor(SingletonSupplier.of(() -> GuardChecks.registry(membership.get())),
				listener, this.jobs);
		// on a class: its own public methods, never toString() and the like inherited
		// from Object
		ComposablePointcut onClass = new ComposablePointcut(new AnnotationMatchingPointcut(LeaderOnly.class, true))
			.intersection(new StaticMethodMatcher() {
				@Override
				public boolean matches(Method method, Class<?> targetClass) {
					return Modifier.isPublic(method.getModifiers()) && method.getDeclaringClass() != Object.class;
				}
			});
		ComposablePointcut pointcut = onClass.union(new AnnotationMatchingPointcut(null, LeaderOnly.class, true));
		this.advisor = new DefaultPointcutAdvisor(pointcut, this.interceptor);
		setProxyTargetClass(true); // @Scheduled methods are found on the class
		setBeforeExistingAdvisors(true);
	}

	@Override
	public void setEnvironment(Environment environment) {
		this.environment = environment;
		this.jobs.environment(environment);
	}

	/** Whether {@link #firedMethods()} was read: the scheduled tasks were configured. */
	private volatile boolean read;

	/**
	 * The guarded methods whose fires are the cluster's, with the beans (proxies) they
	 * are called on.
	 */
	public List<FiredMethod> firedMethods() {
		this.read = true;
		return List.copyOf(this.fired);
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		Class<?> type = AopUtils.getTargetClass(bean);
		List<Method> scheduled = new ArrayList<>();
		Map<Method, LeaderOnly> annotations = new LinkedHashMap<>();
		LeaderOnly onClass = AnnotatedElementUtils.findMergedAnnotation(type, LeaderOnly.class);
		if (onClass != null) {
			add(onClass.group(), type.getSimpleName() + ".*");
			this.jobs.bean(type, beanName);
			// fails now if wrong
			this.jobs.maxRunTime(onClass.maxRunTime(), "LeaderOnly", type.getSimpleName());
		}
		ReflectionUtils.doWithMethods(type, (method) -> {
			String name = type.getSimpleName() + "." + method.getName();
			LeaderOnly onMethod = AnnotatedElementUtils.findMergedAnnotation(method, LeaderOnly.class);
			if (onMethod != null) {
				this.checks.guarded(method, name);
				add(onMethod.group(), name);
				this.jobs.bean(type, beanName);
				this.jobs.maxRunTime(onMethod.maxRunTime(), "LeaderOnly", name);
				annotations.put(method, onMethod);
			}
			else if (onClass != null) {
				int modifiers = method.getModifiers();
				if (Modifier.isPublic(modifiers) && !Modifier.isStatic(modifiers)) {
					this.checks.guarded(method, name);
					annotations.put(method, onClass);
				}
				else {
					this.checks.unguardedOnClass(method, name);
				}
			}
		}, ReflectionUtils.USER_DECLARED_METHODS);
		Object guarded = super.postProcessAfterInitialization(bean, beanName);
		annotations.forEach((method, annotation) -> {
			boolean onMethod = AnnotatedElementUtils.findMergedAnnotation(method, LeaderOnly.class) != null;
			FirePolicy policy = this.jobs.firePolicy(method, GuardedJobs.FireAsked.of(annotation), onMethod,
					type.getSimpleName() + "." + method.getName());
			if (policy != null && this.read) {
				// a lazy bean, made after the scheduled tasks were configured: Spring's
				// scheduler has its task
				GuardedJobs.eachNodesFires(type.getSimpleName() + "." + method.getName(), "a lazy bean");
			}
			else if (policy != null) {
				// the bean's own name: each bean of a class fires apart, with a ledger of
				// its own
				this.fired.add(new FiredMethod(guarded, method, annotation.group(), beanName + "#" + method.getName(),
						policy, 1));
			}
		});
		return guarded;
	}

	private void add(String group, String name) {
		this.methods.computeIfAbsent(group, (g) -> new ConcurrentSkipListSet<>()).add(name);
	}

	@Override
	public void afterSingletonsInstantiated() {
		this.checks.schedulingEnabled(this.beanFactory, this.environment);
		Membership m = this.membership.get();
		if (m == null) {
			if (!this.methods.isEmpty()) {
				List<String> named = new ArrayList<>();
				this.methods
					.forEach((group, names) -> names.forEach((name) -> named.add(name + " (group '" + group + "')")));
				log.warn("Membership is off (membership.enabled=false, or no Membership bean): this node never leads, "
						+ "so these @LeaderOnly methods will not run here: {}", String.join(", ", named));
			}
			return;
		}
		this.checks.registers(m);
		Set<String> partitioned = m.partitionedGroups();
		this.methods.forEach((group, names) -> {
			if (partitioned.contains(group)) {
				throw new GuardMisuseException(
						"@LeaderOnly(group = \"" + group + "\") on " + String.join(", ", names) + ": '" + group
								+ "' is a partitioned group (membership.partitions." + group + "), which no "
								+ "node leads as a whole, so the method would never run.",
						"Use @ForEachOwnedPartition(group = \"" + group + "\") to run it once for each partition this "
								+ "node owns, or name a plain group (membership.groups).");
			}
		});
		this.methods.keySet().forEach(m::competeFor);
	}

}
