package dev.membership.scheduling;

import java.lang.reflect.Method;
import java.lang.reflect.UndeclaredThrowableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.core.Ordered;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.CronTask;
import org.springframework.scheduling.config.IntervalTask;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.scheduling.config.Task;
import org.springframework.scheduling.support.DefaultScheduledTaskObservationConvention;
import org.springframework.scheduling.support.ScheduledTaskObservationContext;
import org.springframework.scheduling.support.ScheduledTaskObservationDocumentation;

import dev.membership.Membership;
import dev.membership.spi.Fire;
import dev.membership.spi.FireSchedule;
import dev.membership.spi.ScheduledJob;
import dev.membership.spi.WorkRegistry;

/**
 * Makes each fire of a {@code @LeaderOnly} or {@code @ForEachOwnedPartition} method
 * {@code @Scheduled(cron = ...,
 * fixedRate = ...)} the cluster's: takes its task off Spring's scheduler, where every
 * node would fire it by its own clock, and hands its schedule to the node
 * ({@link WorkRegistry#schedule}), whose leader of the group (or owner of each partition)
 * fires it once each, by the database's clock, on the application's scheduler. A method's
 * task comes off only when it is found exactly once per bean, so that no fire is ever
 * made by both; one that is not (a lazy bean, several {@code @Scheduled} on one method)
 * keeps Spring's scheduling with the plain guard, and the log says so.
 */
public class LeaderOnlyFires implements SchedulingConfigurer, Ordered, DisposableBean {

	private static final Logger log = LoggerFactory.getLogger(LeaderOnlyFires.class);

	private static final DefaultScheduledTaskObservationConvention OBSERVATION = new DefaultScheduledTaskObservationConvention();

	private final Supplier<List<FiredMethod>> methods;

	private final Supplier<@Nullable Membership> membership;

	private final List<AutoCloseable> scheduled = new ArrayList<>();

	/**
	 * Fires {@code methods} (the {@link LeaderOnlyBeanPostProcessor}'s and the
	 * {@link ForEachOwnedPartitionBeanPostProcessor}'s, read as the tasks are configured)
	 * through {@code membership}'s node (null: membership is off).
	 */
	public LeaderOnlyFires(Supplier<List<FiredMethod>> methods, Supplier<@Nullable Membership> membership) {
		this.methods = methods;
		this.membership = membership;
	}

	/** Last: the tasks of the application's own configurers are there by then. */
	@Override
	public int getOrder() {
		return Ordered.LOWEST_PRECEDENCE;
	}

	@Override
	public void configureTasks(ScheduledTaskRegistrar registrar) {
		WorkRegistry registry = GuardChecks.registry(this.membership.get());
		List<FiredMethod> methods = this.methods.get();
		if (registry == null || methods.isEmpty()) {
			return; // membership off: the plain guard skips every call, as it always did
		}
		Map<String, List<FiredMethod>> byTask = new LinkedHashMap<>();
		methods.forEach((m) -> byTask.computeIfAbsent(m.taskName(), (name) -> new ArrayList<>()).add(m));
		Map<String, List<Task>> taken = new LinkedHashMap<>();
		List<CronTask> cron = keep(registrar.getCronTaskList(), byTask, taken);
		List<IntervalTask> rate = keep(registrar.getFixedRateTaskList(), byTask, taken);
		List<Runnable> jobs = new ArrayList<>();
		byTask.forEach((name, beans) -> {
			List<Task> tasks = taken.getOrDefault(name, List.of());
			if (tasks.size() != beans.size()) {
				log.warn("The fires of {} are each node's, not the cluster's: {} of its scheduled tasks found for {} "
						+ "bean(s) (a lazy bean, or several @Scheduled on the method); the plain guard runs it on the "
						+ "leader (or owners) only", name, tasks.size(), beans.size());
				tasks.forEach((task) -> putBack(task, cron, rate));
				return;
			}
			for (int i = 0; i < beans.size(); i++) {
				ScheduledJob job = job(beans.get(i), tasks.get(i), registrar);
				if (job != null) {
					jobs.add(() -> this.scheduled.add(registry.schedule(job)));
				}
				else {
					putBack(tasks.get(i), cron, rate);
				}
			}
		});
		registrar.setCronTasksList(cron);
		registrar.setFixedRateTasksList(rate);
		// once the registrar schedules its tasks: its scheduler, which runs the fires, is
		// there by then
		registrar.addOneTimeTask(() -> jobs.forEach(Runnable::run), Duration.ZERO);
	}

	private static <T extends Task> List<T> keep(List<T> tasks, Map<String, List<FiredMethod>> byTask,
			Map<String, List<Task>> taken) {
		List<T> kept = new ArrayList<>();
		for (T task : tasks) {
			// Type.method: Spring wraps a task's runnable and gives no other way to its
			// method (spring-framework#35394), so the name it gives is the handle
			String name = FiredMethod.taskName(task.getRunnable().toString());
			if (byTask.containsKey(name)) {
				taken.computeIfAbsent(name, (n) -> new ArrayList<>()).add(task);
			}
			else {
				kept.add(task);
			}
		}
		return kept;
	}

	private static void putBack(Task task, List<CronTask> cron, List<IntervalTask> rate) {
		if (task instanceof CronTask c) {
			cron.add(c);
		}
		else if (task instanceof IntervalTask i) {
			rate.add(i);
		}
	}

	/**
	 * The job of {@code method} on the schedule of {@code task}; null when its instants
	 * are not the cluster's.
	 */
	private static @Nullable ScheduledJob job(FiredMethod fired, Task task, ScheduledTaskRegistrar registrar) {
		FireSchedule schedule;
		try {
			schedule = (task instanceof CronTask cron) ? FireSchedules.trigger(cron.getTrigger())
					: FireSchedules.fixedRate(((IntervalTask) task).getIntervalDuration(),
							((IntervalTask) task).getInitialDelayDuration());
		}
		catch (IllegalArgumentException ex) {
			log.warn("The fires of {} are each node's, not the cluster's ({}); the plain guard runs it on the leader "
					+ "(or owners) only", fired.taskName(), ex.getMessage());
			return null;
		}
		Method invocable = AopUtils.selectInvocableMethod(fired.method(), fired.bean().getClass());
		FireGate gate = new FireGate(fired.concurrency());
		if (fired.reactive()) {
			// each fire calls the method (its guard registers the pipeline under the
			// fire's term) and subscribes
			return new ScheduledJob(fired.group(), fired.job(), schedule, fired.policy(),
					(fire) -> gate.submitAsync(scheduler(registrar),
							(done) -> ReactiveFires.subscribe(fire, fired.bean(), invocable, done)));
		}
		return new ScheduledJob(fired.group(), fired.job(), schedule, fired.policy(),
				(fire) -> gate.submit(scheduler(registrar), () -> run(registrar, fired.bean(), invocable, fire)));
	}

	/**
	 * Runs {@code fire} of {@code method} on {@code bean} (the guard's proxy), the fire
	 * carried by the invocation to the guard ({@link FireInvocation}), observed as
	 * Spring's scheduler observes a task's run ({@code tasks.scheduled.execution}).
	 */
	private static void run(ScheduledTaskRegistrar registrar, Object bean, Method method, Fire fire) {
		ScheduledTaskObservationContext context = new ScheduledTaskObservationContext(bean, method);
		ScheduledTaskObservationDocumentation.TASKS_SCHEDULED_EXECUTION
			.observation(null, OBSERVATION, () -> context, registrar.getObservationRegistry())
			.observe(() -> {
				try {
					FireInvocation.call(bean, method, fire);
					context.setComplete(true);
				}
				catch (RuntimeException | Error ex) {
					throw ex;
				}
				catch (Throwable ex) {
					throw new UndeclaredThrowableException(ex);
				}
			});
	}

	private static TaskScheduler scheduler(ScheduledTaskRegistrar registrar) {
		TaskScheduler scheduler = registrar.getScheduler();
		if (scheduler == null) {
			// the engine logs it, and the fire did not begin
			throw new IllegalStateException("no scheduler yet");
		}
		return scheduler;
	}

	@Override
	public void destroy() throws Exception {
		for (AutoCloseable handle : this.scheduled) {
			handle.close();
		}
	}

}
