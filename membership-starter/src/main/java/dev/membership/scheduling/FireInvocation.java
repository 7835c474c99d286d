package dev.membership.scheduling;

import java.lang.reflect.Method;
import java.util.List;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.TargetSource;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.DefaultAdvisorChainFactory;
import org.springframework.aop.framework.ReflectiveMethodInvocation;

import dev.membership.spi.Fire;

/**
 * A fire's call of its method: through the bean's advice chain, as a call through the
 * bean's proxy goes, with the fire carried by the invocation itself, so that the method's
 * guard ({@link LeaderOnlyInterceptor}, {@link ForEachOwnedPartitionInterceptor}) takes
 * it from the invocation it is handed ({@link #take}), and nothing is left on the thread.
 * A call of the application's own carries none.
 * <p>
 * Unlike a call through the proxy, it does not expose the proxy to
 * {@code AopContext.currentProxy()} (Spring keeps that setter to its own proxies): a
 * fired method reaches its bean's other advised methods through an injected reference.
 */
final class FireInvocation extends ReflectiveMethodInvocation {

	private static final String FIRE = FireInvocation.class.getName() + ".fire";

	private FireInvocation(Object proxy, @Nullable Object target, Method method, @Nullable Class<?> targetClass,
			List<Object> chain) {
		super(proxy, target, method, new Object[0], targetClass, chain);
	}

	/**
	 * Calls {@code method} of {@code bean}, the guard's proxy, as {@code fire}'s run;
	 * returns what the method returns.
	 * @throws IllegalStateException when {@code bean} is not an advised proxy (a guarded
	 * bean always is)
	 */
	static @Nullable Object call(Object bean, Method method, Fire fire) throws Throwable {
		if (!(bean instanceof Advised advised)) {
			throw new IllegalStateException(bean.getClass().getName() + " is not the guard's proxy, so its fire of "
					+ method.getName() + " would run unguarded");
		}
		TargetSource source = advised.getTargetSource();
		Object target = source.getTarget();
		try {
			Class<?> targetClass = (target != null) ? target.getClass() : advised.getTargetClass();
			List<Object> chain = DefaultAdvisorChainFactory.INSTANCE
				.getInterceptorsAndDynamicInterceptionAdvice(advised, method, targetClass);
			FireInvocation invocation = new FireInvocation(bean, target, method, targetClass, chain);
			invocation.setUserAttribute(FIRE, fire);
			return invocation.proceed();
		}
		finally {
			if (target != null && !source.isStatic()) {
				source.releaseTarget(target);
			}
		}
	}

	/**
	 * Takes the fire {@code invocation} runs, when it is a fire of {@code group}'s (a
	 * partition's: {@code partitioned}): once, so that no other guard on the chain, nor a
	 * clone of the invocation, begins it again. Null: a call of the application's own, or
	 * a fire of another kind, which the guard then checks as any call.
	 */
	static @Nullable Fire take(MethodInvocation invocation, String group, boolean partitioned) {
		if (!(invocation instanceof ProxyMethodInvocation proxied)
				|| !(proxied.getUserAttribute(FIRE) instanceof Fire fire) || !fire.group().equals(group)
				|| (fire.partition() != null) != partitioned) {
			return null;
		}
		proxied.setUserAttribute(FIRE, null);
		return fire;
	}

}
