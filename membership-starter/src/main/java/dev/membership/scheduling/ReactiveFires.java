package dev.membership.scheduling;

import java.lang.reflect.Method;

import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;

import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;

import dev.membership.spi.Fire;

/**
 * A reactive {@code @Scheduled} method's fire: calls the method as its fire (the guard
 * registers the pipeline it returns under the fire's term) and subscribes once, as
 * Spring's scheduler subscribes at each of its own fires. Apart from
 * {@link LeaderOnlyFires} so that nothing of Reactor is loaded for an application without
 * it.
 */
final class ReactiveFires {

	private static final Logger log = LoggerFactory.getLogger(ReactiveFires.class);

	private ReactiveFires() {
	}

	/**
	 * Runs {@code fire} of {@code method} on {@code bean} (the guard's proxy);
	 * {@code done} once its pipeline ended.
	 */
	static void subscribe(Fire fire, Object bean, Method method, Runnable done) {
		Object result;
		try {
			result = FireInvocation.call(bean, method, fire);
		}
		catch (Error err) {
			done.run();
			throw err;
		}
		catch (Throwable ex) {
			done.run();
			log.warn("The fire of {} at {} failed as its pipeline was made", fire.job(), fire.instant(), ex);
			return;
		}
		ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance().getAdapter(method.getReturnType());
		if (result == null || adapter == null) {
			done.run();
			return;
		}
		Publisher<?> pipeline = adapter.toPublisher(result);
		Flux.from(pipeline)
			.doFinally((signal) -> done.run())
			.subscribe(null, (ex) -> log.warn("The fire of {} at {} " + "failed", fire.job(), fire.instant(), ex));
	}

}
