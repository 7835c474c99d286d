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
 * Runs the annotated method once for each partition of {@link #group()} this node owns,
 * one after another on the calling thread or {@link #concurrency()} at a time, typically
 * from {@code @Scheduled}: the call does nothing on a node that owns none. Each run is
 * registered with its partition's term as {@code @LeaderOnly} work is with a leader's, so
 * a hand-over of that partition (a rebalance, a graceful stop) waits for it; inside,
 * {@code LeaderContext.currentTerm()} is the partition's term ({@code partition()},
 * {@code epoch()} to fence writes with). A run that throws does not stop the others: the
 * first exception is rethrown once all ran, the later ones added to it as suppressed.
 * <p>
 * The method returns {@code void} and takes no parameters; the group must be a
 * partitioned group of this node ({@code membership.partitions.<group>}). Both are
 * checked at startup, and so is scheduling for a {@code @Scheduled} method. As for
 * {@code @LeaderOnly}, the guard is Spring's proxy: a call from inside the same object is
 * not guarded. A method that returns a reactive type ({@code Mono}, {@code Flux}) is
 * called per subscription instead, once for each partition owned then, one after another,
 * each pipeline registered with its partition's term and carrying it in Reactor's context
 * ({@code ReactiveLeaderContext}); a {@code Flux} emits every partition's elements, a
 * {@code Mono} completes when all did (values dropped); a failing partition does not stop
 * the others, its error comes at the end.
 * <p>
 * A method {@code @Scheduled} once with a {@code cron} or {@code fixedRate} is fired per
 * partition instead: each fire is one partition's, made by the partition's owner at the
 * schedule's instant by the database's clock, recorded with the partition's lease so that
 * it runs once cluster-wide across hand-overs and failovers, and caught up by the next
 * owner when it was missed ({@link #fire()}, {@link #catchUp()}, {@link #missed()},
 * {@link #overlap()}, as for {@code @LeaderOnly}); each call runs one partition (a
 * reactive method's pipeline: one partition's, subscribed once per fire).
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective
public @interface ForEachOwnedPartition {

	/** The partitioned group. */
	String group();

	/** Interrupt a run when its partition is revoked or handed over while it runs. */
	boolean interruptOnRevoke() default false;

	/**
	 * How long one partition's run may take, as {@link LeaderOnly#maxRunTime()}: past it
	 * the node hands that partition over and stays out of the race for it while the run
	 * goes on.
	 */
	String maxRunTime() default "";

	/**
	 * How many of this node's partitions run at once: 1 (the default) runs them one after
	 * another on the calling thread; more runs them on threads the starter owns, at most
	 * that many at a time, each registered, drained, interrupted and isolated as one run
	 * is, and the call returns once every run of the cycle ended (so {@code fixedDelay}
	 * keeps its meaning). A reactive method subscribes to that many partitions' pipelines
	 * at once. The per-partition fires of a {@code cron} or {@code fixedRate} method run
	 * on the application's scheduler, at most that many at once (the others wait their
	 * turn).
	 */
	int concurrency() default 1;

	/**
	 * For a {@code @Scheduled} method with a {@code cron} or {@code fixedRate}: as
	 * {@link LeaderOnly#fire()}, per partition.
	 */
	FireMode fire() default FireMode.RECORDED;

	/**
	 * For a {@code @Scheduled} method with a {@code cron} or {@code fixedRate}: as
	 * {@link LeaderOnly#catchUp()}.
	 */
	String catchUp() default "";

	/** For a {@code @Scheduled} method: as {@link LeaderOnly#missed()}, per partition. */
	MissedFires missed() default MissedFires.COALESCE;

	/**
	 * For a {@code @Scheduled} method: as {@link LeaderOnly#overlap()}, per partition.
	 */
	OverlappingFires overlap() default OverlappingFires.SKIP;

}
