package dev.membership.scheduling;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;

import dev.membership.leadership.LeadershipTerm;
import dev.membership.leadership.ReactiveLeaderContext;
import dev.membership.spi.Fire;
import dev.membership.spi.WorkRegistry;

/**
 * {@code @LeaderOnly} on a method that returns a reactive type (Mono, Flux, or any type
 * Spring's {@link ReactiveAdapterRegistry} adapts): the check, the method's call and the
 * work all happen per subscription, as with Spring's reactive transactions. Not leading
 * at subscription: an empty publisher, and the method is not called. Leading: the method
 * runs with the term on its thread and in Reactor's context, and the subscription is
 * registered with the term until it terminates or is cancelled, so that a graceful
 * hand-over waits for it; with {@code interruptOnRevoke}, the end of the term cancels it
 * (the subscriber sees completion). A cancelled subscription counts as finished once
 * cancelled: what the pipeline had already set going (a write sent, a blocking call on
 * another scheduler) may complete after the hand-over, so such writes need the epoch
 * fence. Loaded only when Reactor is on the classpath.
 */
final class ReactiveLeaderOnly {

	private final ReactiveAdapter adapter;

	private ReactiveLeaderOnly(ReactiveAdapter adapter) {
		this.adapter = adapter;
	}

	/**
	 * The guard for a method returning {@code type}, or null when it is not a deferred
	 * reactive type (a {@code CompletableFuture} has begun when returned: the call itself
	 * is the work, guarded as any other). Needs Reactor.
	 */
	static ReactiveLeaderOnly forReturnType(Class<?> type) {
		if (type == void.class || type.isPrimitive()) {
			return null;
		}
		ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance().getAdapter(type);
		return (adapter != null && adapter.getDescriptor().isDeferred()) ? new ReactiveLeaderOnly(adapter) : null;
	}

	/**
	 * For a subscription that is not cancelled when its term ends: still closable from
	 * any thread.
	 */
	private static final Runnable NOT_CANCELLED = () -> {
	};

	private static void cancelElsewhere(Sinks.Empty<Void> ended) {
		try {
			Schedulers.boundedElastic().schedule(ended::tryEmitEmpty);
		}
		catch (RejectedExecutionException ex) {
			// Reactor's schedulers are shutting down: here, rather than not at all
			ended.tryEmitEmpty();
		}
	}

	Object guard(ProxyMethodInvocation invocation, Supplier<@Nullable WorkRegistry> registry, String group, String job,
			Duration maxRunTime, boolean cancelOnRevoke, Runnable executions, Runnable skips) {
		Publisher<Object> deferred;
		if (this.adapter.isMultiValue()) {
			deferred = Flux.defer(() -> subscribe(invocation, registry.get(),
					begin(registry.get(), termOf(registry.get(), group), job, maxRunTime), null, cancelOnRevoke,
					executions, skips, false));
		}
		else {
			deferred = Mono.defer(() -> Mono.from(subscribe(invocation, registry.get(),
					begin(registry.get(), termOf(registry.get(), group), job, maxRunTime), null, cancelOnRevoke,
					executions, skips, true)));
		}
		return this.adapter.fromPublisher(deferred);
	}

	/**
	 * The form of a scheduled fire's run (a reactive {@code @Scheduled} method's, fired
	 * once cluster-wide): per subscription, the method's pipeline registered under the
	 * term {@code fire} was fired under (a partition's for
	 * {@code @ForEachOwnedPartition}); nothing when that term is over.
	 */
	Object guardFire(ProxyMethodInvocation invocation, WorkRegistry registry, Fire fire, Duration maxRunTime,
			boolean cancelOnRevoke, Runnable executions, Runnable skips) {
		Begin begin = (onEnd) -> fire.tryBeginDetached(onEnd, maxRunTime);
		Publisher<Object> deferred = this.adapter.isMultiValue() ? Flux.defer(
				() -> subscribe(invocation, registry, begin, fire.instant(), cancelOnRevoke, executions, skips, false))
				: Mono.defer(() -> Mono.from(subscribe(invocation, registry, begin, fire.instant(), cancelOnRevoke,
						executions, skips, true)));
		return this.adapter.fromPublisher(deferred);
	}

	/**
	 * Registers a subscription's work, told of the end through the given action; null: do
	 * not run.
	 */
	@FunctionalInterface
	private interface Begin {

		LeadershipTerm.@Nullable Execution begin(Runnable onEnd);

	}

	private static Begin begin(@Nullable WorkRegistry registry, @Nullable LeadershipTerm term, String job,
			Duration maxRunTime) {
		return (onEnd) -> (registry != null && term != null) ? registry.tryBeginDetached(term, job, onEnd, maxRunTime)
				: null;
	}

	/**
	 * The per-partition form ({@code @ForEachOwnedPartition}): per subscription, the
	 * method's pipeline once for each of {@code terms} (the partitions owned then), one
	 * after another, each registered with its own term as above. A multi-value type emits
	 * every partition's elements; a single-value one completes once all did (values
	 * dropped). A partition whose pipeline fails does not stop the others; the errors
	 * come at the end.
	 */
	Object guardEach(ProxyMethodInvocation invocation, WorkRegistry registry, String group, String job,
			Duration maxRunTime, boolean cancelOnRevoke, int concurrency) {
		Function<LeadershipTerm, Publisher<Object>> each = (term) -> subscribe(invocation, registry,
				begin(registry, term, job, maxRunTime), null, cancelOnRevoke, NOT_CANCELLED, NOT_CANCELLED, false);
		Flux<Object> all = Flux.defer(() -> (concurrency > 1)
				? Flux.fromIterable(registry.ownedTerms(group)).flatMapDelayError(each, concurrency, 32)
				: Flux.fromIterable(registry.ownedTerms(group)).concatMapDelayError(each));
		return this.adapter.fromPublisher(this.adapter.isMultiValue() ? all : all.then());
	}

	private static @Nullable LeadershipTerm termOf(@Nullable WorkRegistry registry, String group) {
		return (registry != null) ? registry.currentTerm(group).orElse(null) : null;
	}

	private Publisher<Object> subscribe(ProxyMethodInvocation invocation, @Nullable WorkRegistry registry, Begin begin,
			@Nullable Instant fire, boolean cancelOnRevoke, Runnable executions, Runnable skips, boolean single) {
		Sinks.Empty<Void> ended = cancelOnRevoke ? Sinks.empty() : null;
		// the end is told on the node's own thread: the cancel, and whatever the pipeline
		// does on it, runs elsewhere
		LeadershipTerm.Execution execution = begin
			.begin((ended != null) ? () -> cancelElsewhere(ended) : NOT_CANCELLED);
		if (registry == null || execution == null) {
			skips.run();
			return Flux.empty();
		}
		Publisher<Object> source;
		try {
			executions.run();
			// each subscription calls the method anew, through the rest of the advice
			// chain, with the term as this thread's context while it assembles
			Object result = registry.callWithin(execution, () -> invocation.invocableClone().proceed());
			source = (result != null) ? this.adapter.toPublisher(result) : Flux.empty();
		}
		catch (Throwable ex) {
			execution.failed(ex);
			execution.close();
			return Flux.error(ex);
		}
		if (single) {
			Mono<Object> work = Mono.from(source);
			if (ended != null) {
				work = work.takeUntilOther(ended.asMono());
			}
			return work.doOnError(execution::failed)
				.contextWrite(ReactiveLeaderContext.with(execution, fire))
				.doFinally((signal) -> execution.close());
		}
		Flux<Object> work = Flux.from(source);
		if (ended != null) {
			work = work.takeUntilOther(ended.asMono());
		}
		return work.doOnError(execution::failed)
			.contextWrite(ReactiveLeaderContext.with(execution, fire))
			.doFinally((signal) -> execution.close());
	}

}
