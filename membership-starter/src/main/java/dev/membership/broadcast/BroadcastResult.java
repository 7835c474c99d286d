package dev.membership.broadcast;

import java.util.List;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

/** What became of one broadcast at each live member. */
public record BroadcastResult(UUID messageId, List<Delivery> deliveries) {

	public enum Outcome {

		DELIVERED, FAILED, SKIPPED

	}

	/** {@code detail}: why it failed or was skipped (null when delivered). */
	public record Delivery(String nodeId, @Nullable String address, Outcome outcome, @Nullable String detail) {
	}

	public long count(Outcome outcome) {
		return this.deliveries.stream().filter((d) -> d.outcome() == outcome).count();
	}

}
