package dev.membership.broadcast;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.spi.StoreException;

/**
 * Broadcast keys a store keeps (generated once by the first node, read by every other):
 * read again every five minutes, so that a rotation reaches every node within that; while
 * the store cannot be read, the keys read before are kept and the read is tried again
 * every 30 seconds. One read at a time: the messages that find the keys stale meanwhile
 * wait for that read instead of each reading the store. A store implements
 * {@link #load()}: the MongoDB stores and the PostgreSQL store do.
 */
public abstract class CachedBroadcastKeys implements BroadcastKeySource {

	private static final Logger log = LoggerFactory.getLogger(CachedBroadcastKeys.class);

	/**
	 * How long keys read from the store are used before they are read again: a rotation's
	 * step waits this long.
	 */
	public static final Duration REFRESH = Duration.ofMinutes(5);

	private static final Duration RETRY = Duration.ofSeconds(30);

	private final long refreshNanos;

	private final long retryNanos;

	private volatile @Nullable BroadcastKeyring cached;

	private volatile long cachedAtNanos;

	/** The read in flight, if any: the one the others wait for. */
	private final AtomicReference<@Nullable CompletableFuture<BroadcastKeyring>> reading = new AtomicReference<>();

	protected CachedBroadcastKeys() {
		this(REFRESH);
	}

	/**
	 * Keys read again every {@code refresh} (and, while the store cannot be read, at most
	 * every 30 s).
	 */
	protected CachedBroadcastKeys(Duration refresh) {
		this.refreshNanos = refresh.toNanos();
		this.retryNanos = Math.min(RETRY.toNanos(), refresh.toNanos());
	}

	/**
	 * The keys as the store has them now, a random key kept first when it has none; may
	 * throw.
	 */
	protected abstract BroadcastKeyring load();

	@Override
	public @Nullable BroadcastKeyring keyringAtHand() {
		BroadcastKeyring current = this.cached;
		return (current != null && System.nanoTime() - this.cachedAtNanos < this.refreshNanos) ? current : null;
	}

	@Override
	public BroadcastKeyring keyring() {
		BroadcastKeyring current = keyringAtHand();
		if (current != null) {
			return current;
		}
		CompletableFuture<BroadcastKeyring> mine = new CompletableFuture<>();
		CompletableFuture<BroadcastKeyring> inFlight = this.reading.compareAndExchange(null, mine);
		if (inFlight != null) {
			// another thread reads the store: its answer is this one's
			return await(inFlight);
		}
		try {
			// a read that ended between this thread's look and its turn: its keys are
			// fresh, no second read
			BroadcastKeyring fresh = keyringAtHand();
			mine.complete((fresh != null) ? fresh : read());
		}
		catch (Throwable ex) {
			// whatever it is, the waiters get it too, never wait for good
			mine.completeExceptionally(ex);
		}
		finally {
			this.reading.set(null);
		}
		return await(mine);
	}

	/** Reads the store; keeps the keys read before when it cannot be read. */
	private BroadcastKeyring read() {
		BroadcastKeyring current = this.cached;
		try {
			BroadcastKeyring loaded = load();
			this.cached = loaded;
			this.cachedAtNanos = System.nanoTime();
			return loaded;
		}
		catch (RuntimeException ex) {
			// a driver error, or a reactive call that timed out or was refused on this
			// thread
			if (current != null) {
				// keep the keys we have, and do not make every message wait out the
				// store's timeout meanwhile
				this.cachedAtNanos = System.nanoTime() - this.refreshNanos + this.retryNanos;
				log.warn("Cannot refresh the broadcast keys ({}); keeping the ones read before, trying again in {}",
						ex.getMessage(), Duration.ofNanos(this.retryNanos));
				return current;
			}
			throw (ex instanceof StoreException store) ? store
					: new StoreException("Cannot read the broadcast keys: " + ex.getMessage(), ex);
		}
	}

	private static BroadcastKeyring await(CompletableFuture<BroadcastKeyring> read) {
		try {
			return read.join(); // the read is bounded by the store's operation timeout
		}
		catch (CompletionException ex) {
			if (ex.getCause() instanceof Error error) {
				throw error;
			}
			throw (ex.getCause() instanceof RuntimeException cause) ? cause : ex;
		}
	}

}
