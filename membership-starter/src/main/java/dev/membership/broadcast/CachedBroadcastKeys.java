package dev.membership.broadcast;

import java.time.Duration;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.spi.StoreException;

/**
 * Broadcast keys a store keeps (generated once by the first node, read by every other): read again every five
 * minutes, so that a rotation reaches every node; while the store cannot be read, the keys read before are kept and
 * the read is tried again every 30 seconds. A store implements {@link #load()}: the MongoDB stores and the PostgreSQL
 * store do.
 */
public abstract class CachedBroadcastKeys implements BroadcastKeySource {

	private static final Logger log = LoggerFactory.getLogger(CachedBroadcastKeys.class);

	private static final Duration REFRESH = Duration.ofMinutes(5);

	private static final Duration RETRY = Duration.ofSeconds(30);

	private volatile @Nullable BroadcastKeyring cached;

	private volatile long cachedAtNanos;

	/** The keys as the store has them now, a random key kept first when it has none; may throw. */
	protected abstract BroadcastKeyring load();

	@Override
	public @Nullable BroadcastKeyring keyringAtHand() {
		BroadcastKeyring current = this.cached;
		return (current != null && System.nanoTime() - this.cachedAtNanos < REFRESH.toNanos()) ? current : null;
	}

	@Override
	public BroadcastKeyring keyring() {
		BroadcastKeyring current = this.cached;
		if (current != null && System.nanoTime() - this.cachedAtNanos < REFRESH.toNanos()) {
			return current;
		}
		try {
			BroadcastKeyring loaded = load();
			this.cached = loaded;
			this.cachedAtNanos = System.nanoTime();
			return loaded;
		}
		catch (RuntimeException ex) {
			// a driver error, or a reactive call that timed out or was refused on this thread
			if (current != null) {
				// keep the keys we have, and do not make every message wait out the store's timeout meanwhile
				this.cachedAtNanos = System.nanoTime() - REFRESH.toNanos() + RETRY.toNanos();
				log.warn("Cannot refresh the broadcast keys ({}); keeping the ones read before, trying again in {}",
						ex.getMessage(), RETRY);
				return current;
			}
			throw (ex instanceof StoreException store) ? store
					: new StoreException("Cannot read the broadcast keys: " + ex.getMessage(), ex);
		}
	}

}
