package dev.membership.scheduling;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.ComposablePointcut;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcher;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ReflectionUtils;

import dev.membership.Membership;

/**
 * Adds the leader-only check to beans with {@code @LeaderOnly} methods (or the annotation on the class), and makes
 * this node compete for every group those annotations name, before it joins the cluster.
 */
public class LeaderOnlyBeanPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor
		implements SmartInitializingSingleton {

	private static final Logger log = LoggerFactory.getLogger(LeaderOnlyBeanPostProcessor.class);

	private final Supplier<Membership> membership;

	private final LeaderOnlyInterceptor interceptor;

	private final Set<String> groups = ConcurrentHashMap.newKeySet();

	private final Set<String> methods = new ConcurrentSkipListSet<>();

	public LeaderOnlyBeanPostProcessor(Supplier<Membership> membership,
			Supplier<LeaderOnlyExecutionListener> listener) {
		this.membership = membership;
		this.interceptor = new LeaderOnlyInterceptor(membership, listener);
		// on a class: its own public methods, never toString() and the like inherited from Object
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

	public LeaderOnlyInterceptor interceptor() {
		return this.interceptor;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		Class<?> type = AopUtils.getTargetClass(bean);
		LeaderOnly onClass = AnnotatedElementUtils.findMergedAnnotation(type, LeaderOnly.class);
		if (onClass != null) {
			this.groups.add(onClass.group());
			this.methods.add(type.getSimpleName() + ".* (group '" + onClass.group() + "')");
		}
		ReflectionUtils.doWithMethods(type, (method) -> {
			LeaderOnly onMethod = AnnotatedElementUtils.findMergedAnnotation(method, LeaderOnly.class);
			if (onMethod != null) {
				this.groups.add(onMethod.group());
				this.methods.add(type.getSimpleName() + "." + method.getName() + " (group '" + onMethod.group() + "')");
			}
		}, ReflectionUtils.USER_DECLARED_METHODS);
		return super.postProcessAfterInitialization(bean, beanName);
	}

	@Override
	public void afterSingletonsInstantiated() {
		Membership m = this.membership.get();
		if (m != null) {
			this.groups.forEach(m::join);
		}
		else if (!this.methods.isEmpty()) {
			log.warn("Membership is off (membership.enabled=false, or no Membership bean): this node never leads, so "
					+ "these @LeaderOnly methods will not run here: {}", String.join(", ", this.methods));
		}
	}

}
