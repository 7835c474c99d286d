package dev.membership.broadcast;

import org.jspecify.annotations.Nullable;

/**
 * Where the cluster's broadcast keys come from: properties, or a key generated once and
 * kept in the database.
 */
@FunctionalInterface
public interface BroadcastKeySource {

	/**
	 * The keys, primary first. May call the store; a failure is retried at the next use.
	 */
	BroadcastKeyring keyring();

	/**
	 * The keys if they can be had without blocking (in memory and fresh), else null: what
	 * a hand-over notice is signed with on the engine's thread. By default null (the
	 * notice then goes through the broadcast's own threads).
	 */
	default @Nullable BroadcastKeyring keyringAtHand() {
		return null;
	}

	/** Fixed keys (from properties): always at hand. */
	static BroadcastKeySource of(BroadcastKeyring keyring) {
		return new BroadcastKeySource() {

			@Override
			public BroadcastKeyring keyring() {
				return keyring;
			}

			@Override
			public BroadcastKeyring keyringAtHand() {
				return keyring;
			}

		};
	}

}
