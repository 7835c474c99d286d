package dev.membership.scheduling;

import java.lang.reflect.Method;
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
import dev.membership.spi.WorkRegistry;

/**
 * Runs a {@link ForEachOwnedPartition} method once per partition this node owns, each under its partition's term; no
 * database call.
 */
class ForEachOwnedPartitionInterceptor implements MethodInterceptor {

	static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Flux",
			ForEachOwnedPartitionInterceptor.class.getClassLoader());

	private final Supplier<@Nullable WorkRegistry> registry;

	private final Map<Method, Target> targets = new ConcurrentHashMap<>();

	ForEachOwnedPartitionInterceptor(Supplier<@Nullable WorkRegistry> registry) {
		this.registry = registry;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Target target = this.targets.computeIfAbsent(invocation.getMethod(), (method) -> Target.of(invocation));
		WorkRegistry registry = this.registry.get();
		if (target.group == null || registry == null) {
			return (target.group == null) ? invocation.proceed() : null;
		}
		if (target.reactive != null && invocation instanceof ProxyMethodInvocation proxied) {
			// per subscription: the partitions owned then, each under its term
			return target.reactive.guardEach(proxied, registry, target.group, target.name, target.interruptOnRevoke);
		}
		Throwable first = null;
		for (LeadershipTerm term : registry.ownedTerms(target.group)) {
			LeadershipTerm.Execution execution = registry.tryBegin(term, target.name, target.interruptOnRevoke);
			if (execution == null) {
				continue; // handed over or ended since owned() answered
			}
			try (execution) {
				// each run goes through the rest of the chain anew
				((invocation instanceof ProxyMethodInvocation proxied) ? proxied.invocableClone() : invocation)
					.proceed();
			}
			catch (Throwable ex) {
				if (first == null) {
					first = ex;
				}
				else {
					first.addSuppressed(ex);
				}
			}
		}
		if (first != null) {
			throw first;
		}
		return null;
	}

	/**
	 * What the annotation says of one method; a null group: not annotated (the method runs as it is).
	 * {@code reactive}: the guard of a method that returns a reactive type.
	 */
	private record Target(@Nullable String group, String name, boolean interruptOnRevoke,
			@Nullable ReactiveLeaderOnly reactive) {

		static Target of(MethodInvocation invocation) {
			Method method = invocation.getMethod();
			Object self = invocation.getThis();
			Class<?> targetClass = (self != null) ? AopUtils.getTargetClass(self) : method.getDeclaringClass();
			ForEachOwnedPartition annotation = AnnotatedElementUtils
				.findMergedAnnotation(AopUtils.getMostSpecificMethod(method, targetClass), ForEachOwnedPartition.class);
			String name = targetClass.getSimpleName() + "." + method.getName();
			ReactiveLeaderOnly reactive = REACTOR_PRESENT ? ReactiveLeaderOnly.forReturnType(method.getReturnType())
					: null;
			return (annotation != null) ? new Target(annotation.group(), name, annotation.interruptOnRevoke(), reactive)
					: new Target(null, name, false, null);
		}

	}

}
