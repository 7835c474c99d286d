package dev.membership.scheduling;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.aot.hint.annotation.Reflective;

import dev.membership.leadership.FireMode;
import dev.membership.leadership.MissedFires;
import dev.membership.leadership.OverlappingFires;

/**
 * Runs the annotated method (or every public method of the annotated class) only while
 * this node leads {@link #group()}. On any other node the call returns at once without
 * running: {@code null}, an empty {@code Optional}, or zero/false for primitives. The
 * check is in memory: no database operation per call.
 * <p>
 * Naming a group here makes the node compete for it; a partitioned group fails startup
 * (use {@link ForEachOwnedPartition}). Inside the method,
 * {@code LeaderContext.currentTerm()} gives the term and its epoch to fence writes with.
 * A {@code @Scheduled} method needs scheduling enabled ({@code @EnableScheduling}):
 * startup fails otherwise.
 * <p>
 * The guard is Spring's proxy of the bean: a call from inside the same object
 * ({@code this.purge()}) is not guarded, so call the method through the bean; a private,
 * static or final method cannot be guarded and fails startup.
 * <p>
 * A method returning {@code Mono}, {@code Flux} or another reactive type is guarded per
 * subscription: not leading then, the subscriber gets an empty publisher and the method
 * is not called; leading, the term is also in Reactor's context
 * ({@code ReactiveLeaderContext.currentTerm()}), the subscription counts as running work
 * until it ends, and {@link #interruptOnRevoke()} cancels it. A cancelled subscription
 * counts as ended once cancelled: what it had already set going may complete after the
 * hand-over, so fence its writes with the epoch.
 */
@Target({ ElementType.METHOD, ElementType.TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective // a native image keeps what the guard finds and calls
public @interface LeaderOnly {

	/** The leadership group. */
	String group() default "default";

	/**
	 * Interrupt the running method when this node's leadership of the group is revoked or
	 * handed over while it runs; for a reactive method, cancel its subscription (the
	 * subscriber then sees completion).
	 */
	boolean interruptOnRevoke() default false;

	/**
	 * How long a run may take ({@code 30s}, {@code 10m}, {@code PT10M}, or a
	 * {@code ${placeholder}}); empty: the default,
	 * {@code membership.leader-only.max-run-time} (no limit when unset); {@code 0}: no
	 * limit. A run past it counts as hung: it is logged at WARN with its thread's stack,
	 * health lists it, and the node hands the group over (the drain waits for the run up
	 * to {@code membership.shutdown.drain-timeout}, then releases) and stays out of the
	 * race for it while the run goes on, so that another node takes the work. What the
	 * hung run still writes, the epoch fences. ShedLock's {@code lockAtMostFor}, with the
	 * lock handed on instead of expiring under the run.
	 */
	String maxRunTime() default "";

	/**
	 * For a {@code @Scheduled} method with a {@code cron} or {@code fixedRate}: how its
	 * fires are recorded, so that each runs once cluster-wide. {@link FireMode#RECORDED}
	 * (the default) rides the writes the leader makes anyway, and after a crash a fire
	 * whose end the next leader cannot find runs again (at least once);
	 * {@link FireMode#STRICT} pays one write per fire, before it runs, and a fire is
	 * never repeated (at most once).
	 */
	FireMode fire() default FireMode.RECORDED;

	/**
	 * For a {@code @Scheduled} method with a {@code cron} or {@code fixedRate}: how late
	 * a fire that no node could run on time (a failover, the whole cluster down, a run
	 * that overran) may still run, as soon as a node leads ({@code 10m}, {@code PT10M},
	 * or a {@code ${placeholder}}; {@code 0}: never). Empty: the default,
	 * {@code membership.leader-only.catch-up}, else one period of the schedule, at most
	 * an hour. A missed fire beyond it is recorded as {@code missed} in the run history
	 * and counted ({@code membership.runs.missed}).
	 */
	String catchUp() default "";

	/**
	 * For a {@code @Scheduled} method: what a new leader does with several missed fires
	 * within the catch-up window.
	 */
	MissedFires missed() default MissedFires.COALESCE;

	/**
	 * For a {@code @Scheduled} method: what a fire does while the method's previous run
	 * still runs (on this node, or draining on the node that handed the group over):
	 * skipped and recorded, or run once the other ended.
	 */
	OverlappingFires overlap() default OverlappingFires.SKIP;

}
