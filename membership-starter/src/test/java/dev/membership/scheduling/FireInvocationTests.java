package dev.membership.scheduling;

import java.lang.reflect.Method;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.aopalliance.intercept.MethodInterceptor;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.aop.framework.ProxyFactory;

import dev.membership.leadership.LeadershipTerm.Execution;
import dev.membership.spi.Fire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * A fire carried by its invocation: the method runs through the bean's whole advice
 * chain, and the fire goes to the first guard of its kind and group, once.
 */
class FireInvocationTests {

	@Test
	void theFireGoesThroughTheChainToTheFirstGuardOfItsGroupOnce() throws Throwable {
		List<String> taken = new ArrayList<>();
		Job target = new Job();
		ProxyFactory factory = new ProxyFactory(target);
		factory.addAdvice(guard("other", false, taken));
		factory.addAdvice(guard("reports", true, taken));
		factory.addAdvice(guard("reports", false, taken));
		factory.addAdvice(guard("reports", false, taken));
		Object proxy = factory.getProxy();
		Method run = Job.class.getMethod("run");
		assertThat(FireInvocation.call(proxy, run, fire("reports", null))).isEqualTo("ran");
		assertThat(target.runs).isEqualTo(1);
		// another group's guard, a partition guard: none; the first plain guard of
		// 'reports': the fire; the next: taken already
		assertThat(taken).containsExactly("other: none", "reports (partitions): none", "reports: fire of job",
				"reports: none");
	}

	@Test
	void aCallOfTheApplicationsOwnCarriesNoFire() {
		List<String> taken = new ArrayList<>();
		Job target = new Job();
		ProxyFactory factory = new ProxyFactory(target);
		factory.addAdvice(guard("reports", false, taken));
		((Job) factory.getProxy()).run();
		assertThat(taken).containsExactly("reports: none");
	}

	@Test
	void aBeanThatIsNoProxyIsRefusedRatherThanRunUnguarded() throws Exception {
		Method run = Job.class.getMethod("run");
		assertThatIllegalStateException().isThrownBy(() -> FireInvocation.call(new Job(), run, fire("reports", null)))
			.withMessageContaining("would run unguarded");
	}

	private static MethodInterceptor guard(String group, boolean partitioned, List<String> taken) {
		return (invocation) -> {
			Fire fire = FireInvocation.take(invocation, group, partitioned);
			taken.add(group + (partitioned ? " (partitions)" : "") + ": "
					+ ((fire != null) ? "fire of " + fire.job() : "none"));
			return invocation.proceed();
		};
	}

	private static Fire fire(String group, @Nullable Integer partition) {
		return new Fire() {

			@Override
			public String group() {
				return group;
			}

			@Override
			public @Nullable Integer partition() {
				return partition;
			}

			@Override
			public String job() {
				return "job";
			}

			@Override
			public Instant instant() {
				return Instant.EPOCH;
			}

			@Override
			public long epoch() {
				return 1;
			}

			@Override
			public @Nullable Execution tryBegin(boolean interruptible, Duration maxRunTime) {
				return null;
			}

			@Override
			public @Nullable Execution tryBeginDetached(Runnable onEnd, Duration maxRunTime) {
				return null;
			}

		};
	}

	public static class Job {

		int runs;

		public String run() {
			this.runs++;
			return "ran";
		}

	}

}
