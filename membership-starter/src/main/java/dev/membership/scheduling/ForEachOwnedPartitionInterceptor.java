package dev.membership.scheduling;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;

import dev.membership.leadership.LeadershipTerm;
import dev.membership.spi.Fire;
import dev.membership.spi.WorkRegistry;

/**
 * Runs a {@link ForEachOwnedPartition} method once per partition this node owns, each
 * under its partition's term, one after another or, with a concurrency above one, on
 * {@link ParallelRuns}; no database call. A call that runs a fire (a
 * {@link FireInvocation}, made by {@link LeaderOnlyFires}) runs that fire's partition
 * only, under the term it was fired under.
 */
class ForEachOwnedPartitionInterceptor implements MethodInterceptor, AutoCloseable {

	static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Flux",
			ForEachOwnedPartitionInterceptor.class.getClassLoader());

	private final Supplier<@Nullable WorkRegistry> registry;

	private static final Runnable NOTHING = () -> {
	};

	private final Map<Method, Target> targets = new ConcurrentHashMap<>();

	private final GuardedJobs jobs;

	private final ParallelRuns parallel = new ParallelRuns();

	ForEachOwnedPartitionInterceptor(Supplier<@Nullable WorkRegistry> registry, GuardedJobs jobs) {
		this.registry = registry;
		this.jobs = jobs;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Target target = this.targets.computeIfAbsent(invocation.getMethod(),
				(method) -> Target.of(invocation, this.jobs));
		WorkRegistry registry = this.registry.get();
		if (target.group == null || registry == null) {
			return (target.group == null) ? invocation.proceed() : null;
		}
		Fire fire = FireInvocation.take(invocation, target.group, true);
		if (fire != null && target.reactive != null && invocation instanceof ProxyMethodInvocation proxied) {
			return target.reactive.guardFire(proxied, registry, fire, target.maxRunTime, target.interruptOnRevoke,
					// one partition's fire: that partition's pipeline only
					NOTHING, NOTHING);
		}
		if (fire != null) {
			// one partition's fire: that partition only
			return runFire(registry, fire, target, invocation);
		}
		if (target.reactive != null && invocation instanceof ProxyMethodInvocation proxied) {
			// per subscription: the partitions owned then, each under its term
			return target.reactive.guardEach(proxied, registry, target.group, target.job, target.maxRunTime,
					target.interruptOnRevoke, target.concurrency);
		}
		if (target.concurrency > 1) {
			List<ParallelRuns.Run> runs = new ArrayList<>();
			for (LeadershipTerm term : registry.ownedTerms(target.group)) {
				MethodInvocation run = (invocation instanceof ProxyMethodInvocation proxied) ? proxied.invocableClone()
						: invocation;
				// registered on the thread that runs it: its LeaderContext, and the one
				// an interrupt reaches
				runs.add(() -> runUnder(registry, term, target, run));
			}
			this.parallel.runAll(runs, target.concurrency);
			return null;
		}
		Throwable first = null;
		for (LeadershipTerm term : registry.ownedTerms(target.group)) {
			LeadershipTerm.Execution execution = registry.tryBegin(term, target.job, target.interruptOnRevoke,
					target.maxRunTime);
			if (execution == null) {
				continue; // handed over or ended since owned() answered
			}
			try {
				// each run goes through the rest of the chain anew
				((invocation instanceof ProxyMethodInvocation proxied) ? proxied.invocableClone() : invocation)
					.proceed();
			}
			catch (Throwable ex) {
				execution.failed(ex); // before the close, which ends the run
				if (first == null) {
					first = ex;
				}
				else {
					first.addSuppressed(ex);
				}
			}
			finally {
				execution.close();
			}
		}
		if (first != null) {
			throw first;
		}
		return null;
	}

	/**
	 * Runs {@code fire}, one partition's, under the term it was fired under; nothing when
	 * that term is over.
	 */
	private static @Nullable Object runFire(WorkRegistry registry, Fire fire, Target target, MethodInvocation run)
			throws Throwable {
		LeadershipTerm.Execution execution = fire.tryBegin(target.interruptOnRevoke, target.maxRunTime);
		if (execution == null) {
			// handed over or ended since it fired: the partition's next owner runs it
			return null;
		}
		try {
			return run.proceed();
		}
		catch (Throwable ex) {
			execution.failed(ex); // before the close, which ends the run
			throw ex;
		}
		finally {
			execution.close();
		}
	}

	private static void runUnder(WorkRegistry registry, LeadershipTerm term, Target target, MethodInvocation run)
			throws Throwable {
		LeadershipTerm.Execution execution = registry.tryBegin(term, target.job, target.interruptOnRevoke,
				target.maxRunTime);
		if (execution == null) {
			return; // handed over or ended since owned() answered
		}
		try {
			run.proceed();
		}
		catch (Throwable ex) {
			execution.failed(ex); // before the close, which ends the run
			throw ex;
		}
		finally {
			execution.close();
		}
	}

	@Override
	public void close() {
		this.parallel.close();
	}

	/**
	 * What the annotation says of one method; a null group: not annotated (the method
	 * runs as it is). {@code reactive}: the guard of a method that returns a reactive
	 * type.
	 */
	private record Target(@Nullable String group, String job, Duration maxRunTime, boolean interruptOnRevoke,
			@Nullable ReactiveLeaderOnly reactive, int concurrency) {

		static Target of(MethodInvocation invocation, GuardedJobs jobs) {
			Method method = invocation.getMethod();
			Object self = invocation.getThis();
			Class<?> targetClass = (self != null) ? AopUtils.getTargetClass(self) : method.getDeclaringClass();
			ForEachOwnedPartition annotation = AnnotatedElementUtils
				.findMergedAnnotation(AopUtils.getMostSpecificMethod(method, targetClass), ForEachOwnedPartition.class);
			String name = targetClass.getSimpleName() + "." + method.getName();
			ReactiveLeaderOnly reactive = REACTOR_PRESENT ? ReactiveLeaderOnly.forReturnType(method.getReturnType())
					: null;
			return (annotation != null)
					? new Target(annotation.group(), jobs.job(targetClass, method),
							jobs.maxRunTime(annotation.maxRunTime(), "ForEachOwnedPartition", name),
							annotation.interruptOnRevoke(), reactive, annotation.concurrency())
					: new Target(null, name, Duration.ZERO, false, null, 1);
		}

	}

}
