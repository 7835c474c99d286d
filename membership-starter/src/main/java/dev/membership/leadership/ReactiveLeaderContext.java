package dev.membership.leadership;

import java.util.Optional;

import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

/**
 * The leadership term of a reactive {@code @LeaderOnly} method's pipeline, from Reactor's context: the term reaches
 * every operator of the pipeline the method returned, on whatever thread it runs.
 * <pre>
 * return ReactiveLeaderContext.currentTerm().flatMap((term) -&gt; repository.save(report.withEpoch(term.epoch())));
 * </pre>
 * Needs Reactor on the classpath.
 */
public final class ReactiveLeaderContext {

	/** The key under which the term is in Reactor's context. */
	public static final Class<LeadershipTerm> KEY = LeadershipTerm.class;

	private ReactiveLeaderContext() {
	}

	/** The term, or empty outside leader-only work. */
	public static Mono<LeadershipTerm> currentTerm() {
		return Mono.deferContextual((context) -> Mono.justOrEmpty(currentTerm(context)));
	}

	public static Optional<LeadershipTerm> currentTerm(ContextView context) {
		return context.getOrEmpty(KEY);
	}

}
