package dev.membership.spi;

import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * One read of the lease documents: the leases of the groups asked for (a group without a
 * document is absent), and the roster without its member list (version and recent
 * changes) when its version differs from the one the reader has (null otherwise, or when
 * there is none).
 */
public record LeaseReading(Map<String, LeaseRecord> leases, @Nullable Roster roster) {

	public LeaseReading {
		leases = (leases != null) ? Map.copyOf(leases) : Map.of();
	}

}
