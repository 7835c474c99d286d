package dev.membership.broadcast;

import java.time.Duration;

/**
 * @param path where every node receives broadcasts
 * @param connectTimeout per member connection timeout
 * @param readTimeout per member response timeout
 * @param dedupeWindow how long a message id is remembered; timestamps more than half of
 * it away are rejected
 * @param maxBodySize largest accepted message, in bytes
 * @param deliverToSelf whether the sender gets its own broadcasts as events too
 */
public record BroadcastSettings(String path, Duration connectTimeout, Duration readTimeout, Duration dedupeWindow,
		long maxBodySize, boolean deliverToSelf) {

	public static final String KEY_ID_HEADER = "X-Membership-Key-Id";

	public static final String SIGNATURE_HEADER = "X-Membership-Signature";

	public static BroadcastSettings defaults() {
		return new BroadcastSettings("/membership/broadcast", Duration.ofMillis(500), Duration.ofSeconds(2),
				Duration.ofMinutes(1), 64 * 1024, false);
	}

}
