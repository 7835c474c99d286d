package dev.membership.scheduling;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ReflectionUtils;

import dev.membership.Membership;

/**
 * Adds the per-partition runs to beans with {@link ForEachOwnedPartition} methods, and fails startup when such a method
 * returns a value, takes parameters, or names a group that is not a partitioned group of this node.
 */
public class ForEachOwnedPartitionBeanPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor
		implements SmartInitializingSingleton {

	private final Supplier<@Nullable Membership> membership;

	/** Method description to its group. */
	private final Map<String, String> methods = new TreeMap<>();

	public ForEachOwnedPartitionBeanPostProcessor(Supplier<@Nullable Membership> membership) {
		this.membership = membership;
		this.advisor = new DefaultPointcutAdvisor(new AnnotationMatchingPointcut(null, ForEachOwnedPartition.class, true),
				new ForEachOwnedPartitionInterceptor(membership));
		setProxyTargetClass(true); // @Scheduled methods are found on the class
		setBeforeExistingAdvisors(true);
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		Class<?> type = AopUtils.getTargetClass(bean);
		ReflectionUtils.doWithMethods(type, (method) -> {
			ForEachOwnedPartition annotation = AnnotatedElementUtils.findMergedAnnotation(method,
					ForEachOwnedPartition.class);
			if (annotation != null) {
				String name = type.getSimpleName() + "." + method.getName();
				check(method, name);
				synchronized (this.methods) {
					this.methods.put(name, annotation.group());
				}
			}
		}, ReflectionUtils.USER_DECLARED_METHODS);
		return super.postProcessAfterInitialization(bean, beanName);
	}

	private static void check(Method method, String name) {
		boolean reactive = ForEachOwnedPartitionInterceptor.REACTOR_PRESENT
				&& ReactiveLeaderOnly.forReturnType(method.getReturnType()) != null;
		if ((method.getReturnType() != void.class && !reactive) || method.getParameterCount() != 0) {
			throw new IllegalStateException("@ForEachOwnedPartition method " + name + " must return void (or a "
					+ "reactive type, subscribed once per partition) and take no parameters: it runs once per owned "
					+ "partition, with the partition's term in LeaderContext");
		}
	}

	@Override
	public void afterSingletonsInstantiated() {
		Membership m = this.membership.get();
		if (m == null) {
			return; // membership is off: the node owns nothing, so the methods never run (nothing to check against)
		}
		synchronized (this.methods) {
			this.methods.forEach((name, group) -> {
				try {
					m.partitions(group);
				}
				catch (IllegalArgumentException ex) {
					throw new IllegalStateException("@ForEachOwnedPartition method " + name + " names group '" + group
							+ "', which is not a partitioned group of this node: set membership.partitions." + group
							+ "=<count>", ex);
				}
			});
		}
	}

}
