package dev.membership.scheduling;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;

/**
 * What a guard needs to know of a guarded method besides its annotation: the job's name ({@code bean#method}, as runs
 * are observed and recorded) and how long a run may take. Filled by a post-processor as it meets guarded beans.
 */
final class GuardedJobs {

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
	 * {@code bean#method}: the bean's name when one bean has the class, else the class's name as Spring would name its
	 * bean.
	 */
	String job(Class<?> type, Method method) {
		String bean = this.beanNames.get(type);
		if (bean == null || bean.isEmpty()) {
			bean = StringUtils.uncapitalizeAsProperty(type.getSimpleName());
		}
		return bean + "#" + method.getName();
	}

	/**
	 * The time limit an annotation's {@code maxRunTime} gives ({@code 10m}, {@code PT10M}, a placeholder; {@code 0}:
	 * none), or the default when it is empty; zero for no limit.
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

	private static Duration parse(String value, String what, String where) {
		Duration limit;
		try {
			limit = DurationStyle.detectAndParse(value.trim());
		}
		catch (IllegalArgumentException ex) {
			throw new GuardMisuseException(what + " is not a duration, so the time limit of " + where
					+ " cannot be known.", "Write it as 30s, 10m or PT10M (0 for no limit).");
		}
		if (limit.isNegative()) {
			throw new GuardMisuseException(what + " is negative.", "Give a positive duration, or 0 for no limit.");
		}
		return limit;
	}

}
