package dev.membership.scheduling;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.KotlinDetector;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.env.Environment;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.annotation.Schedules;
import org.springframework.util.StringUtils;

import dev.membership.leadership.FireMode;
import dev.membership.leadership.MissedFires;
import dev.membership.leadership.OverlappingFires;
import dev.membership.spi.FirePolicy;

/**
 * What a guard needs to know of a guarded method besides its annotation: the job's name
 * ({@code bean#method}, as runs are observed and recorded) and how long a run may take.
 * Filled by a post-processor as it meets guarded beans.
 */
final class GuardedJobs {

	/** The catch-up window of guarded fires whose annotation sets none. */
	static final String DEFAULT_CATCH_UP = "membership.leader-only.catch-up";

	/** The time limit of guarded runs whose annotation sets none. */
	static final String DEFAULT_MAX_RUN_TIME = "membership.leader-only.max-run-time";

	/** A class two beans of different names have: its jobs are named after the class. */
	private static final String SEVERAL = "";

	private final Map<Class<?>, String> beanNames = new ConcurrentHashMap<>();

	private volatile @Nullable Environment environment;

	void environment(Environment environment) {
		this.environment = environment;
	}

	/** A guarded bean: its jobs are named after it. */
	void bean(Class<?> type, String beanName) {
		this.beanNames.merge(type, beanName, (was, now) -> was.equals(now) ? was : SEVERAL);
	}

	/**
	 * {@code bean#method}: the bean's name when one bean has the class, else the class's
	 * name as Spring would name its bean.
	 */
	String job(Class<?> type, Method method) {
		String bean = this.beanNames.get(type);
		if (bean == null || bean.isEmpty()) {
			bean = StringUtils.uncapitalizeAsProperty(type.getSimpleName());
		}
		return bean + "#" + method.getName();
	}

	/**
	 * The time limit an annotation's {@code maxRunTime} gives ({@code 10m},
	 * {@code PT10M}, a placeholder; {@code 0}: none), or the default when it is empty;
	 * zero for no limit.
	 * @throws GuardMisuseException when it is neither a duration nor empty
	 */
	Duration maxRunTime(String annotated, String annotation, String where) {
		Environment env = this.environment;
		String value = (env != null) ? env.resolvePlaceholders(annotated) : annotated;
		if (!StringUtils.hasText(value)) {
			String fallback = (env != null) ? env.getProperty(DEFAULT_MAX_RUN_TIME) : null;
			return StringUtils.hasText(fallback) ? parse(fallback, DEFAULT_MAX_RUN_TIME + "=" + fallback, where)
					: Duration.ZERO;
		}
		return parse(value, "@" + annotation + "(maxRunTime = \"" + annotated + "\") on " + where, where);
	}

	/**
	 * What a guard's annotation asks of its fires: {@code @LeaderOnly}'s or
	 * {@code @ForEachOwnedPartition}'s.
	 */
	record FireAsked(String annotation, FireMode fire, String catchUp, MissedFires missed, OverlappingFires overlap) {

		static FireAsked of(LeaderOnly annotation) {
			return new FireAsked("LeaderOnly", annotation.fire(), annotation.catchUp(), annotation.missed(),
					annotation.overlap());
		}

		static FireAsked of(ForEachOwnedPartition annotation) {
			return new FireAsked("ForEachOwnedPartition", annotation.fire(), annotation.catchUp(), annotation.missed(),
					annotation.overlap());
		}

		boolean anything() {
			return this.fire != FireMode.RECORDED || !this.catchUp.isEmpty() || this.missed != MissedFires.COALESCE
					|| this.overlap != OverlappingFires.SKIP;
		}

	}

	/**
	 * The fire policy of a guarded method whose fires are the cluster's:
	 * {@code @Scheduled} once, with a cron or a fixed rate (reactive too, with Reactor);
	 * null for any other method.
	 * @param onMethod whether the annotation is the method's own (a class's applies to
	 * methods of every kind)
	 * @throws GuardMisuseException when its annotation asks for a fire policy that such a
	 * method alone has, or a catch-up that is not a duration
	 */
	@Nullable FirePolicy firePolicy(Method method, FireAsked asked, boolean onMethod, String where) {
		Set<Scheduled> schedules = AnnotatedElementUtils.getMergedRepeatableAnnotations(method, Scheduled.class,
				Schedules.class);
		boolean atInstants = schedules.size() == 1 && firesAtInstants(schedules.iterator().next());
		boolean suspending = KotlinDetector.isSuspendingFunction(method);
		// a reactive method's pipeline is subscribed once per fire, which needs Reactor
		// and a deferred type
		boolean fires = atInstants && !suspending
				&& (!isReactive(method.getReturnType()) || (ForEachOwnedPartitionInterceptor.REACTOR_PRESENT
						&& ReactiveLeaderOnly.forReturnType(method.getReturnType()) != null));
		if (atInstants && suspending) {
			eachNodesFires(where, "a Kotlin suspending function");
		}
		else if (atInstants && !fires) {
			eachNodesFires(where, "a reactive @Scheduled method whose type is not one Reactor adapts");
		}
		else if (schedules.size() > 1 && schedules.stream().anyMatch(GuardedJobs::firesAtInstants)) {
			eachNodesFires(where, "several @Scheduled on one method");
		}
		if (!fires) {
			if (asked.anything() && onMethod) {
				throw new GuardMisuseException(
						"@" + asked.annotation() + " on " + where + " sets fire, catchUp, "
								+ "missed or overlap, which only a method whose fires are the cluster's takes.",
						"Schedule it " + "once with @Scheduled(cron = ...) or @Scheduled(fixedRate = ...), or drop "
								+ "those attributes (a fixedDelay has no instants to keep).");
			}
			return null;
		}
		return new FirePolicy(catchUp(asked, where), asked.missed(), asked.overlap(), asked.fire());
	}

	/**
	 * Says once, at startup, that the fires of {@code where} are each node's: its node's
	 * scheduler fires it by its own clock and the guard runs it on the leader (or owner),
	 * as before, without the record that keeps each fire once.
	 */
	static void eachNodesFires(String where, String what) {
		LoggerFactory.getLogger(GuardedJobs.class)
			.warn("The fires of {} are each node's ({}: not yet kept once each "
					+ "cluster-wide): a fire lost in a failover is not caught up, and none is recorded", where, what);
	}

	/**
	 * A reactive return type, as Spring's scheduler tells one
	 * ({@code ReactiveAdapterRegistry} adapts it: a {@code Mono}, a {@code Flux}, any
	 * Reactive Streams publisher), whose method it subscribes to at each fire.
	 */
	static boolean isReactive(Class<?> type) {
		ReactiveAdapterRegistry registry = ReactiveAdapterRegistry.getSharedInstance();
		return type != void.class && !type.isPrimitive() && registry.hasAdapters() && registry.getAdapter(type) != null;
	}

	private static boolean firesAtInstants(Scheduled scheduled) {
		boolean delay = scheduled.fixedDelay() >= 0 || StringUtils.hasText(scheduled.fixedDelayString());
		boolean rate = scheduled.fixedRate() >= 0 || StringUtils.hasText(scheduled.fixedRateString());
		return !delay && (StringUtils.hasText(scheduled.cron()) || rate);
	}

	/**
	 * The catch-up window an annotation's {@code catchUp} gives, or the default; null:
	 * one period, at most an hour.
	 */
	private @Nullable Duration catchUp(FireAsked asked, String where) {
		String annotated = asked.catchUp();
		Environment env = this.environment;
		String value = (env != null) ? env.resolvePlaceholders(annotated) : annotated;
		if (!StringUtils.hasText(value)) {
			String fallback = (env != null) ? env.getProperty(DEFAULT_CATCH_UP) : null;
			return StringUtils.hasText(fallback) ? parse(fallback, DEFAULT_CATCH_UP + "=" + fallback, where) : null;
		}
		return parse(value, "@" + asked.annotation() + "(catchUp = \"" + annotated + "\") on " + where, where);
	}

	private static Duration parse(String value, String what, String where) {
		Duration limit;
		try {
			limit = DurationStyle.detectAndParse(value.trim());
		}
		catch (IllegalArgumentException ex) {
			throw new GuardMisuseException(
					what + " is not a duration, so the time limit of " + where + " cannot be known.",
					"Write it as 30s, 10m or PT10M (0 for no limit).");
		}
		if (limit.isNegative()) {
			throw new GuardMisuseException(what + " is negative.", "Give a positive duration, or 0 for no limit.");
		}
		return limit;
	}

}
