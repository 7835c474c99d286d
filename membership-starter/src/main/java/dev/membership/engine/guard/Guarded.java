package dev.membership.engine.guard;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Code the starter is given (an application's metrics, observers, listeners, placement),
 * called so that what it throws goes no further: its first failure logged with the stack
 * trace, later ones at debug. The engine's callbacks and the auto-configuration's beans
 * are called through it; not for applications.
 *
 * @param <T> the callback's type
 */
public final class Guarded<T> {

	private static final Logger log = LoggerFactory.getLogger(Guarded.class);

	private final String kind;

	private final T target;

	private final AtomicBoolean warned = new AtomicBoolean();

	/**
	 * Guards {@code target}, named in the log by {@code kind} ("metrics", "leadership
	 * observer") and its class.
	 */
	public Guarded(String kind, T target) {
		this.kind = kind;
		this.target = target;
	}

	/** Calls {@code method} of the target; what it throws is logged and ignored. */
	public void call(String method, Consumer<T> call) {
		apply(method, (target) -> {
			call.accept(target);
			return null;
		});
	}

	/** The target's answer, or null when it threw (logged). */
	public <R> @Nullable R apply(String method, Function<T, R> call) {
		try {
			return call.apply(this.target);
		}
		catch (VirtualMachineError err) {
			// out of memory, a stack overflow: not the callback's own failure
			throw err;
		}
		catch (Throwable ex) {
			if (this.warned.compareAndSet(false, true)) {
				log.warn("The {} {} threw from {} (ignored; later failures are logged at debug)", this.kind,
						this.target.getClass().getName(), method, ex);
			}
			else {
				log.debug("The {} {} threw from {} (ignored): {}", this.kind, this.target.getClass().getName(), method,
						ex.toString());
			}
			return null;
		}
	}

}
