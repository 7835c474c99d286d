package dev.membership.scheduling;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListSet;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.Environment;
import org.springframework.scheduling.annotation.ScheduledAnnotationBeanPostProcessor;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.annotation.Schedules;
import org.springframework.scheduling.config.TaskManagementConfigUtils;

import dev.membership.Membership;
import dev.membership.spi.WorkRegistry;

/**
 * The startup checks of one guard annotation ({@code annotation}: {@code LeaderOnly} or
 * {@code ForEachOwnedPartition}) that do not depend on the cluster: a method no Spring
 * proxy can intercept (it would run unguarded), and {@code @Scheduled} methods in an
 * application that never enabled scheduling (they would never run). Each fails startup
 * with a {@link GuardMisuseException} that names the method and the fix.
 */
final class GuardChecks {

	/**
	 * Turns the scheduling check off, for applications that call their {@code @Scheduled}
	 * methods themselves.
	 */
	static final String REQUIRE_SCHEDULING = "membership.leader-only.require-scheduling";

	private final String annotation;

	/** The guarded methods {@code @Scheduled} is meant to run, as {@code Type.method}. */
	private final Set<String> scheduled = new ConcurrentSkipListSet<>();

	GuardChecks(String annotation) {
		this.annotation = annotation;
	}

	/** A method the annotation guards: fails at once when no proxy can intercept it. */
	void guarded(Method method, String name) {
		int modifiers = method.getModifiers();
		String why = Modifier.isPrivate(modifiers) ? "private"
				: Modifier.isStatic(modifiers) ? "static" : Modifier.isFinal(modifiers) ? "final" : null;
		if (why != null) {
			throw new GuardMisuseException("@" + this.annotation + " method " + name + " is " + why
					+ ": the Spring proxy that runs the guard cannot intercept it, so calls of it would run unguarded.",
					"Make " + name + " neither private, static nor final (public, protected or package-private).");
		}
		if (isScheduled(method)) {
			this.scheduled.add(name);
		}
	}

	/**
	 * A {@code @Scheduled} method of a class annotated with {@code @LeaderOnly} that the
	 * class's annotation does not guard (only public methods are): it would run on every
	 * node.
	 */
	void unguardedOnClass(Method method, String name) {
		if (isScheduled(method)) {
			throw new GuardMisuseException(
					"@Scheduled method " + name + " is in a class annotated with @" + this.annotation
							+ ", which guards only the class's public methods: it would run on every node.",
					"Make " + name + " public, or put @" + this.annotation + " on the method itself.");
		}
	}

	/**
	 * Once every singleton exists: {@code @Scheduled} guarded methods need scheduling to
	 * be enabled.
	 */
	void schedulingEnabled(@Nullable ConfigurableListableBeanFactory beanFactory, @Nullable Environment environment) {
		if (this.scheduled.isEmpty() || beanFactory == null || schedulingIsOn(beanFactory)
				|| (environment != null && !environment.getProperty(REQUIRE_SCHEDULING, Boolean.class, true))) {
			return;
		}
		throw new GuardMisuseException(
				"These @" + this.annotation + " methods are @Scheduled, but scheduling is not "
						+ "enabled in this application, so they would never run, on any node: "
						+ String.join(", ", this.scheduled) + ".",
				"Add @EnableScheduling to a @Configuration class (your @SpringBootApplication class will do). If the "
						+ "application calls these methods itself, set " + REQUIRE_SCHEDULING + "=false.");
	}

	private static boolean schedulingIsOn(ConfigurableListableBeanFactory beanFactory) {
		return beanFactory.containsBean(TaskManagementConfigUtils.SCHEDULED_ANNOTATION_PROCESSOR_BEAN_NAME)
				|| beanFactory.getBeanNamesForType(ScheduledAnnotationBeanPostProcessor.class, true, false).length > 0;
	}

	/**
	 * Where the guards register work: the node behind the {@code Membership} bean; null
	 * when membership is off.
	 */
	static @Nullable WorkRegistry registry(@Nullable Membership membership) {
		return (membership instanceof WorkRegistry registry) ? registry : null;
	}

	/**
	 * A {@code Membership} bean the guards cannot register work with would make every
	 * guarded method a no-op.
	 */
	void registers(@Nullable Membership membership) {
		if (membership != null && !(membership instanceof WorkRegistry)) {
			throw new GuardMisuseException(
					"The Membership bean is a " + membership.getClass().getName() + ", which "
							+ "cannot register work with a term, so @" + this.annotation + " methods would never run.",
					"Let the starter make the Membership bean (or the test kit: @AutoConfigureMembershipTest), or "
							+ "make yours a dev.membership.spi.WorkRegistry as dev.membership.engine.MembershipNode is.");
		}
	}

	static boolean isScheduled(Method method) {
		return !AnnotatedElementUtils.getMergedRepeatableAnnotations(method, Scheduled.class, Schedules.class)
			.isEmpty();
	}

}
