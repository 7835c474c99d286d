package dev.membership.leadership;

import java.util.function.Function;

import reactor.core.publisher.Mono;
import reactor.util.context.Context;

/**
 * The leadership term of a reactive {@code @LeaderOnly} method's pipeline, from Reactor's context: the term reaches
 * every operator of the pipeline the method returned, on whatever thread it runs. What {@link LeaderContext} is to
 * leader code on a thread.
 * <pre>
 * return ReactiveLeaderContext.currentTerm().flatMap((term) -&gt; repository.save(report.withEpoch(term.epoch())));
 * </pre>
 * Needs Reactor on the classpath.
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
	 * Puts the term of {@code work} (registered with it, so that a hand-over waits for it) in a pipeline's context
	 * ({@code contextWrite}): what the reactive guards do.
	 */
	public static Function<Context, Context> with(LeadershipTerm.Execution work) {
		LeadershipTerm term = work.term();
		return (context) -> context.put(KEY, term);
	}

}
