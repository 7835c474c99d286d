package dev.membership.spi;

/**
 * A local clock that only moves forward: the basis of every local deadline. Never
 * compared with database times.
 */
@FunctionalInterface
public interface MonotonicClock {

	long nanoTime();

	static MonotonicClock system() {
		return System::nanoTime;
	}

}
