package dev.membership.scheduling;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.TargetClassAware;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;

import dev.membership.spi.Fire;
import dev.membership.spi.LeaderOnlyExecutionListener;
import dev.membership.leadership.LeadershipTerm;
import dev.membership.spi.WorkRegistry;

/**
 * Lets a {@code @LeaderOnly} call through only on the leader: one in-memory check of the
 * current term (monotonic deadline included) and its registration with the term, so that
 * a hand-over waits for it; no database call. Made by {@link LeaderOnlyBeanPostProcessor}
 * in an application; public for the test kit's proxies without Spring.
 */
public class LeaderOnlyInterceptor implements MethodInterceptor {

	private static final Logger log = LoggerFactory.getLogger(LeaderOnlyInterceptor.class);

	private final Supplier<@Nullable WorkRegistry> registry;

	private final Supplier<LeaderOnlyExecutionListener> listener;

	private final GuardedJobs jobs;

	private final Map<MethodClassKey, Target> targets = new ConcurrentHashMap<>();

	private final Map<Method, Target> byMethod = new ConcurrentHashMap<>();

	/**
	 * The first target found in {@link #byMethod}: the call of the one method most
	 * applications guard costs no map lookup. Written once, so that threads calling
	 * several guarded methods never contend for it; a plain field, since a
	 * {@link Target}'s fields are final.
	 */
	private @Nullable Target last;

	public LeaderOnlyInterceptor(Supplier<@Nullable WorkRegistry> registry,
			Supplier<LeaderOnlyExecutionListener> listener) {
		this(registry, listener, new GuardedJobs());
	}

	LeaderOnlyInterceptor(Supplier<@Nullable WorkRegistry> registry, Supplier<LeaderOnlyExecutionListener> listener,
			GuardedJobs jobs) {
		this.registry = registry;
		this.listener = listener;
		this.jobs = jobs;
	}

	@Override
	public Object invoke(MethodInvocation invocation) throws Throwable {
		Target target = target(invocation);
		if (!target.isGuarded()) {
			return invocation.proceed();
		}
		// per subscription, calling the method anew each time: needs an invocation that
		// can be cloned (Spring AOP's) a scheduled fire registers under the term it was
		// fired under, which records its end for the next term
		Fire fire = FireInvocation.take(invocation, target.group, false);
		if (target.reactive != null && invocation instanceof ProxyMethodInvocation proxied) {
			WorkRegistry registry = this.registry.get();
			return (fire != null && registry != null)
					? target.reactive.guardFire(proxied, registry, fire, target.maxRunTime, target.interruptOnRevoke,
							target.executions, target.skips)
					: target.reactive.guard(proxied, this.registry, target.group, target.job, target.maxRunTime,
							target.interruptOnRevoke, target.executions, target.skips);
		}
		WorkRegistry registry = this.registry.get();
		// registered with its term, so that a graceful hand-over waits for it (or
		// interrupts it) before releasing; the term is the thread's LeaderContext
		// meanwhile
		LeadershipTerm.Execution execution = (registry == null) ? null
				: (fire != null) ? fire.tryBegin(target.interruptOnRevoke, target.maxRunTime)
						: registry.tryBegin(target.group, target.job, target.interruptOnRevoke, target.maxRunTime);
		if (execution == null) {
			log.debug("Skipped {}: this node does not lead group '{}' or is handing it over", target.name,
					target.group);
			target.skips.run();
			return emptyResult(invocation.getMethod().getReturnType());
		}
		try {
			target.executions.run();
			return invocation.proceed();
		}
		catch (Throwable ex) {
			execution.failed(ex); // before the close, which ends the run
			throw ex;
		}
		finally {
			execution.close(); // also when a listener threw
		}
	}

	/**
	 * What the annotations say about this call's method, resolved once per method and
	 * target class. The usual case (one target class per method, a target that is neither
	 * a proxy nor {@link TargetClassAware}) compares the target's runtime class only:
	 * {@link AopUtils#getTargetClass} costs more than the rest of the guard.
	 */
	private Target target(MethodInvocation invocation) {
		Method method = invocation.getMethod();
		Object self = invocation.getThis();
		Target last = this.last;
		if (last != null && last.method == method && self != null && last.runtimeClass == self.getClass()) {
			return last;
		}
		Target cached = this.byMethod.get(method);
		if (cached != null && self != null && cached.runtimeClass == self.getClass()) {
			if (last == null) {
				this.last = cached;
			}
			return cached;
		}
		Class<?> targetClass = (self != null) ? AopUtils.getTargetClass(self) : method.getDeclaringClass();
		Target target = this.targets.computeIfAbsent(new MethodClassKey(method, targetClass),
				(key) -> Target.of(method, targetClass, this.listener.get(), this.jobs));
		if (self != null && !(self instanceof TargetClassAware) && !AopUtils.isAopProxy(self)) {
			// the runtime class alone then decides the target class: the next call of
			// this method can skip the key
			this.byMethod.put(method, target.seenOn(self.getClass()));
		}
		return target;
	}

	private static Object emptyResult(Class<?> type) {
		if (type == Optional.class) {
			return Optional.empty();
		}
		if (!type.isPrimitive() || type == void.class) {
			return null;
		}
		if (type == boolean.class) {
			return false;
		}
		if (type == char.class) {
			return '\0';
		}
		if (type == long.class) {
			return 0L;
		}
		if (type == double.class) {
			return 0d;
		}
		if (type == float.class) {
			return 0f;
		}
		if (type == short.class) {
			return (short) 0;
		}
		if (type == byte.class) {
			return (byte) 0;
		}
		return 0;
	}

	private static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Flux",
			LeaderOnlyInterceptor.class.getClassLoader());

	private static final Target NOT_GUARDED = new Target(null, Object.class, Object.class, "", false, "", "",
			Duration.ZERO, LeaderOnlyExecutionListener.NOTHING, LeaderOnlyExecutionListener.NOTHING, null);

	/**
	 * {@code method}: the method resolved (null when not guarded); {@code runtimeClass}:
	 * the class of the target object this was last resolved for, which stands for the
	 * target class on the fast path; {@code name}: {@code Type.method}, the meters' tag;
	 * {@code job}: {@code bean#method}, the run's; {@code reactive}: the guard of a
	 * method that returns a reactive type, whose work runs per subscription.
	 */
	private record Target(@Nullable Method method, Class<?> runtimeClass, Class<?> targetClass, String group,
			boolean interruptOnRevoke, String name, String job, Duration maxRunTime, Runnable executions,
			Runnable skips, @Nullable ReactiveLeaderOnly reactive) {

		boolean isGuarded() {
			return !this.name.isEmpty(); // a guarded method's name is never empty
		}

		Target seenOn(Class<?> runtimeClass) {
			return (runtimeClass == this.runtimeClass) ? this
					: new Target(this.method, runtimeClass, this.targetClass, this.group, this.interruptOnRevoke,
							this.name, this.job, this.maxRunTime, this.executions, this.skips, this.reactive);
		}

		static Target of(Method method, Class<?> targetClass, LeaderOnlyExecutionListener listener, GuardedJobs jobs) {
			Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
			LeaderOnly annotation = AnnotatedElementUtils.findMergedAnnotation(specific, LeaderOnly.class);
			if (annotation == null) {
				annotation = AnnotatedElementUtils.findMergedAnnotation(targetClass, LeaderOnly.class);
			}
			if (annotation == null) {
				return NOT_GUARDED;
			}
			String name = targetClass.getSimpleName() + "." + method.getName();
			ReactiveLeaderOnly reactive = REACTOR_PRESENT ? ReactiveLeaderOnly.forReturnType(method.getReturnType())
					: null;
			return new Target(method, targetClass, targetClass, annotation.group(), annotation.interruptOnRevoke(),
					name, jobs.job(targetClass, method), jobs.maxRunTime(annotation.maxRunTime(), "LeaderOnly", name),
					listener.executions(annotation.group(), name), listener.skips(annotation.group(), name), reactive);
		}

	}

}
