package dev.membership.bench.support;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.membership.spi.NodeRuntime;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shared runtime keeps the promises of {@link NodeRuntime} that the node relies on.
 */
class SharedRuntimesTests {

	private final SharedRuntimes runtimes = new SharedRuntimes(4, 2);

	@AfterEach
	void close() {
		this.runtimes.close();
	}

	@Test
	void aStrandRunsItsTasksOneAtATimeInOrder() throws Exception {
		NodeRuntime runtime = this.runtimes.runtime(new SharedRuntimes.CallScope());
		List<Integer> seen = new CopyOnWriteArrayList<>();
		AtomicInteger running = new AtomicInteger();
		AtomicBoolean overlapped = new AtomicBoolean();
		CountDownLatch done = new CountDownLatch(1);
		for (int i = 0; i < 200; i++) {
			int n = i;
			runtime.loop().execute(() -> {
				overlapped.compareAndSet(false, running.incrementAndGet() > 1);
				seen.add(n);
				running.decrementAndGet();
				if (n == 199) {
					done.countDown();
				}
			});
		}
		assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
		assertThat(overlapped).isFalse();
		assertThat(seen).hasSize(200).isSorted();
	}

	@Test
	void theWatchdogRunsWhileTheLoopWaitsOnAStoreCall() throws Exception {
		SharedRuntimes.CallScope scope = new SharedRuntimes.CallScope();
		NodeRuntime runtime = this.runtimes.runtime(scope);
		CountDownLatch inCall = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		CountDownLatch fired = new CountDownLatch(1);
		AtomicBoolean scopeCurrent = new AtomicBoolean();
		runtime.loop().execute(() -> runtime.call(() -> {
			scopeCurrent.set(SharedRuntimes.CallScope.current() == scope);
			inCall.countDown();
			await(release);
			return "ok";
		}, (result, failure) -> {
		}));
		assertThat(inCall.await(5, TimeUnit.SECONDS)).isTrue();
		runtime.watchdog().schedule(fired::countDown, TimeUnit.MILLISECONDS.toNanos(10));
		assertThat(fired.await(5, TimeUnit.SECONDS)).isTrue();
		release.countDown();
		assertThat(scopeCurrent).isTrue();
		assertThat(scope.calls()).isEqualTo(1);
		assertThat(SharedRuntimes.CallScope.current()).isNull();
	}

	@Test
	void aCancelledTimerDoesNotRun() throws Exception {
		NodeRuntime runtime = this.runtimes.runtime(new SharedRuntimes.CallScope());
		AtomicBoolean ran = new AtomicBoolean();
		NodeRuntime.Timer timer = runtime.loop().schedule(() -> ran.set(true), TimeUnit.MILLISECONDS.toNanos(50));
		timer.cancel();
		CountDownLatch later = new CountDownLatch(1);
		runtime.loop().schedule(later::countDown, TimeUnit.MILLISECONDS.toNanos(100));
		assertThat(later.await(5, TimeUnit.SECONDS)).isTrue();
		assertThat(ran).isFalse();
	}

	@Test
	void shutdownStopsLoopAndWatchdogAtOnceAndLetsTheEventLanesFinish() throws Exception {
		NodeRuntime runtime = this.runtimes.runtime(new SharedRuntimes.CallScope());
		CountDownLatch block = new CountDownLatch(1);
		CountDownLatch started = new CountDownLatch(1);
		AtomicInteger events = new AtomicInteger();
		runtime.reactions().execute(() -> {
			started.countDown();
			await(block);
			events.incrementAndGet();
		});
		runtime.reactions().execute(events::incrementAndGet);
		assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
		AtomicBoolean late = new AtomicBoolean();
		runtime.loop().schedule(() -> late.set(true), TimeUnit.MILLISECONDS.toNanos(20));

		runtime.shutdown();

		assertThat(runtime.loop().execute(() -> late.set(true))).isFalse();
		assertThat(runtime.watchdog().schedule(() -> late.set(true), 0)).isNull();
		assertThat(runtime.reactions().execute(events::incrementAndGet)).isFalse();
		block.countDown();
		runtime.awaitEvents(Duration.ofSeconds(5));
		assertThat(events).hasValue(2);
		// the timer was due 20 ms after scheduling: it stays dropped well past that
		Awaitility.await().during(Duration.ofMillis(50)).atMost(Duration.ofSeconds(1)).untilFalse(late);
	}

	@Test
	void haltDropsEverythingAndInterruptsOnlyTheRunningTask() throws Exception {
		NodeRuntime crashed = this.runtimes.runtime(new SharedRuntimes.CallScope());
		NodeRuntime other = this.runtimes.runtime(new SharedRuntimes.CallScope());
		CountDownLatch started = new CountDownLatch(1);
		CountDownLatch interrupted = new CountDownLatch(1);
		AtomicBoolean ranAfter = new AtomicBoolean();
		crashed.loop().execute(() -> {
			started.countDown();
			try {
				Thread.sleep(5_000);
			}
			catch (InterruptedException ex) {
				interrupted.countDown();
			}
		});
		crashed.loop().execute(() -> ranAfter.set(true));
		assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();

		crashed.halt();

		assertThat(interrupted.await(5, TimeUnit.SECONDS)).isTrue();
		assertThat(crashed.application().execute(() -> ranAfter.set(true))).isFalse();
		// the pool threads go on, uninterrupted, for the other nodes
		for (int i = 0; i < 20; i++) {
			CountDownLatch slept = new CountDownLatch(1);
			other.loop().execute(() -> {
				try {
					Thread.sleep(1);
					slept.countDown();
				}
				catch (InterruptedException ex) {
					// left to the assertion
				}
			});
			assertThat(slept.await(5, TimeUnit.SECONDS)).isTrue();
		}
		assertThat(ranAfter).isFalse();
	}

	private static void await(CountDownLatch latch) {
		try {
			latch.await(5, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
