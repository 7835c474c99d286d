package dev.membership.operations;

import java.time.Duration;

/**
 * Pause rebalancing for {@code duration} (more than nothing, at most an hour), on the
 * coordinator ({@link ClusterOperations#pause}).
 */
public record Pause(Duration duration, Requester requestedBy) implements OperationRequest {

	public Pause {
		if (duration == null) {
			throw new IllegalArgumentException("A pause names its length: {\"duration\": \"10m\"}");
		}
		requestedBy = Checks.requester(requestedBy);
	}

	@Override
	public String action() {
		return "pause";
	}

}
