package dev.membership.leadership;

import java.time.Instant;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import reactor.core.publisher.Mono;
import reactor.util.context.Context;

/**
 * The leadership term of a reactive {@code @LeaderOnly} method's pipeline, from Reactor's
 * context: the term reaches every operator of the pipeline the method returned, on
 * whatever thread it runs. What {@link LeaderContext} is to leader code on a thread.
 * <pre>
 * return ReactiveLeaderContext.currentTerm().flatMap((term) -&gt; repository.save(report.withEpoch(term.epoch())));
 * </pre> Needs Reactor on the classpath.
 */
public final class ReactiveLeaderContext {

	private static final Class<LeadershipTerm> KEY = LeadershipTerm.class;

	private ReactiveLeaderContext() {
	}

	/** The term; an {@link IllegalStateException} outside a leader-only pipeline. */
	public static Mono<LeadershipTerm> currentTerm() {
		return Mono.deferContextual((context) -> context.<LeadershipTerm>getOrEmpty(KEY)
			.map(Mono::just)
			.orElseGet(() -> Mono.error(new IllegalStateException(
					"Not in the pipeline of a reactive @LeaderOnly method: no leadership term in Reactor's context"))));
	}

	/**
	 * The instant of the scheduled fire the pipeline runs for (a reactive
	 * {@code @Scheduled} method's, fired once cluster-wide: see
	 * {@link LeaderContext#currentFire()}); empty for any other pipeline.
	 */
	public static Mono<Instant> currentFire() {
		return Mono
			.deferContextual((context) -> Mono.justOrEmpty(context.<Fired>getOrEmpty(Fired.class).map(Fired::at)));
	}

	/** The key and value of a fire's instant in Reactor's context. */
	private record Fired(Instant at) {
	}

	/**
	 * Puts the term of {@code work} (registered with it, so that a hand-over waits for
	 * it) in a pipeline's context ({@code contextWrite}): what the reactive guards do.
	 */
	public static Function<Context, Context> with(LeadershipTerm.Execution work) {
		LeadershipTerm term = work.term();
		return (context) -> context.put(KEY, term);
	}

	/**
	 * As {@link #with(LeadershipTerm.Execution)}, for the run of the scheduled fire at
	 * {@code fire} (null: none).
	 */
	public static Function<Context, Context> with(LeadershipTerm.Execution work, @Nullable Instant fire) {
		LeadershipTerm term = work.term();
		return (fire != null) ? (context) -> context.put(KEY, term).put(Fired.class, new Fired(fire))
				: (context) -> context.put(KEY, term);
	}

}
