package dev.membership.autoconfigure;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.convert.DurationUnit;
import org.springframework.util.unit.DataSize;

/** {@code membership.broadcast.*}: a group of {@link MembershipProperties}. */
public class BroadcastProperties {

	/**
	 * Whether nodes can broadcast to each other (needs a web server: servlet or
	 * reactive).
	 */
	private boolean enabled = true;

	/**
	 * Path at which every node receives broadcasts.
	 */
	private String path = "/membership/broadcast";

	/**
	 * Connection timeout per member.
	 */
	@DurationUnit(ChronoUnit.SECONDS)
	private Duration connectTimeout = Duration.ofMillis(500);

	/**
	 * Response timeout per member.
	 */
	@DurationUnit(ChronoUnit.SECONDS)
	private Duration readTimeout = Duration.ofSeconds(2);

	/**
	 * How long a message id is remembered to drop duplicates. Messages whose timestamp is
	 * more than half of it away from the receiver's database-time estimate are rejected
	 * as replays.
	 */
	@DurationUnit(ChronoUnit.SECONDS)
	private Duration dedupeWindow = Duration.ofMinutes(1);

	/**
	 * Largest message accepted.
	 */
	private DataSize maxBodySize = DataSize.ofKilobytes(64);

	/**
	 * HMAC-SHA256 keys, at least 32 bytes each: the first signs, all verify. Empty: a key
	 * generated once and kept in MongoDB (collection membership.mongo.keys-collection).
	 */
	private List<String> keys = new ArrayList<>();

	/**
	 * Whether the sender receives its own broadcasts as events too.
	 */
	private boolean deliverToSelf;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getPath() {
		return this.path;
	}

	public void setPath(String path) {
		this.path = path;
	}

	public Duration getConnectTimeout() {
		return this.connectTimeout;
	}

	public void setConnectTimeout(Duration connectTimeout) {
		this.connectTimeout = connectTimeout;
	}

	public Duration getReadTimeout() {
		return this.readTimeout;
	}

	public void setReadTimeout(Duration readTimeout) {
		this.readTimeout = readTimeout;
	}

	public Duration getDedupeWindow() {
		return this.dedupeWindow;
	}

	public void setDedupeWindow(Duration dedupeWindow) {
		this.dedupeWindow = dedupeWindow;
	}

	public DataSize getMaxBodySize() {
		return this.maxBodySize;
	}

	public void setMaxBodySize(DataSize maxBodySize) {
		this.maxBodySize = maxBodySize;
	}

	public List<String> getKeys() {
		return this.keys;
	}

	public void setKeys(List<String> keys) {
		this.keys = keys;
	}

	public boolean isDeliverToSelf() {
		return this.deliverToSelf;
	}

	public void setDeliverToSelf(boolean deliverToSelf) {
		this.deliverToSelf = deliverToSelf;
	}

}
