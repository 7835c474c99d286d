package dev.membership.spi;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * Who holds (or asks for) a lease: a node id plus the incarnation of the process using
 * it. Two processes started with the same node id by mistake have different incarnations,
 * so they can never both hold a lease.
 */
public record Holder(String nodeId, String incarnation, @Nullable String address) {

	public Holder {
		Objects.requireNonNull(nodeId, "nodeId");
		Objects.requireNonNull(incarnation, "incarnation");
	}

}
