package dev.membership.scheduling;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;

import dev.membership.Membership;
import dev.membership.leadership.LeaderContext;
import dev.membership.leadership.LeadershipTerm;

/**
 * Lets a {@code @LeaderOnly} call through only on the leader: one in-memory check of the current term (monotonic
 * deadline included), nothing else.
 */
public class LeaderOnlyInterceptor implements MethodInterceptor {

	private static final Logger log = LoggerFactory.getLogger(LeaderOnlyInterceptor.class);

	private final Supplier<Membership> membership;

	private final Supplier<LeaderOnlyExecutionListener> listener;

	private final Map<MethodClassKey, Target> targets = new ConcurrentHashMap<>();

	private final Map<Thread, Running> interruptible = new ConcurrentHashMap<>();

	public LeaderOnlyInterceptor(Supplier<Membership> membership, Supplier<LeaderOnlyExecutionListener> listener) {
		this.membership = membership;
		this.listener = listener;
	}

	@Override
	public Object invoke(MethodInvocation invocation) throws Throwable {
		Object self = invocation.getThis();
		Class<?> targetClass = (self != null) ? AopUtils.getTargetClass(self) : invocation.getMethod().getDeclaringClass();
		Target target = this.targets.computeIfAbsent(new MethodClassKey(invocation.getMethod(), targetClass),
				(key) -> Target.of(invocation.getMethod(), targetClass));
		if (target == null) {
			return invocation.proceed();
		}
		Membership m = this.membership.get();
		Optional<LeadershipTerm> current = (m != null) ? m.currentTerm(target.group) : Optional.empty();
		if (current.isEmpty()) {
			log.debug("Skipped {}: this node does not lead group '{}'", target.name, target.group);
			this.listener.get().skipped(target.group, target.name);
			return emptyResult(invocation.getMethod().getReturnType());
		}
		LeadershipTerm term = current.get();
		this.listener.get().executed(target.group, target.name);
		Object[] arguments = invocation.getArguments();
		Class<?>[] types = invocation.getMethod().getParameterTypes();
		for (int i = 0; i < types.length; i++) {
			if (types[i] == LeadershipTerm.class && arguments[i] == null) {
				arguments[i] = term;
			}
		}
		Running running = null;
		if (target.interruptOnRevoke) {
			running = new Running(target.group, term.epoch(), Thread.currentThread());
			this.interruptible.put(running.thread, running);
			if (!term.isValid()) {
				revoked(target.group, term.epoch()); // revoked between the check and the registration
			}
		}
		try (LeaderContext.Scope scope = LeaderContext.enter(term)) {
			return invocation.proceed();
		}
		finally {
			if (running != null) {
				this.interruptible.remove(running.thread);
				if (running.interrupted) {
					Thread.interrupted(); // ours to clear: the thread goes back to its pool
				}
			}
		}
	}

	/** Interrupts the {@code interruptOnRevoke} methods running under this term. */
	public void revoked(String group, long epoch) {
		for (Running running : this.interruptible.values()) {
			if (running.group.equals(group) && running.epoch == epoch) {
				running.interrupted = true;
				running.thread.interrupt();
			}
		}
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

	private static final class Running {

		final String group;

		final long epoch;

		final Thread thread;

		volatile boolean interrupted;

		Running(String group, long epoch, Thread thread) {
			this.group = group;
			this.epoch = epoch;
			this.thread = thread;
		}

	}

	private record Target(String group, boolean interruptOnRevoke, String name) {

		static Target of(Method method, Class<?> targetClass) {
			Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
			LeaderOnly annotation = AnnotatedElementUtils.findMergedAnnotation(specific, LeaderOnly.class);
			if (annotation == null) {
				annotation = AnnotatedElementUtils.findMergedAnnotation(targetClass, LeaderOnly.class);
			}
			if (annotation == null) {
				return null;
			}
			return new Target(annotation.group(), annotation.interruptOnRevoke(),
					targetClass.getSimpleName() + "." + method.getName());
		}

	}

}
