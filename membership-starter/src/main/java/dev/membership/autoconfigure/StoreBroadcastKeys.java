package dev.membership.autoconfigure;

import java.util.Objects;

import dev.membership.broadcast.BroadcastKeySource;

/**
 * The broadcast's keys as a store module keeps them in its database (generated once,
 * shared by every node): a bean each store module defines beside its store. The starter
 * uses them when {@code membership.broadcast.keys} is not set, and decides so as the
 * application starts, not when an ahead-of-time image is built.
 *
 * @param keys the store's keys
 */
public record StoreBroadcastKeys(BroadcastKeySource keys) {

	public StoreBroadcastKeys {
		Objects.requireNonNull(keys, "keys");
	}

}
