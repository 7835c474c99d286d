package dev.membership.autoconfigure;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.convert.DurationUnit;
import org.springframework.util.unit.DataSize;

/**
 * Cluster membership: heartbeats, liveness and leader leases in MongoDB. A duration written without a unit is read in
 * seconds ({@code lease-duration=15} is 15 s), as the design writes them; use {@code ms} for shorter ones.
 */
@ConfigurationProperties("membership")
public class MembershipProperties {

	/**
	 * Whether this application joins the cluster.
	 */
	private boolean enabled = true;

	/**
	 * Id of this node, unique in the cluster. Defaults to spring.application.name (or "membership") plus a random
	 * suffix, new at every start.
	 */
	private String nodeId;

	/**
	 * Which store keeps the leases and the roster when the application could use more than one: mongodb
	 * (membership-mongodb) or jdbc (PostgreSQL, membership-jdbc). Unset, the one the application has is used.
	 */
	private String store;

	/**
	 * Address other nodes use to reach this one, as host:port or a URL. Defaults to this host's address and the web
	 * server's port.
	 */
	private String advertisedAddress;

	/**
	 * How often every node heartbeats and reads the member list, the leader renews its lease and followers try to
	 * acquire. At most half the lease duration.
	 */
	@DurationUnit(ChronoUnit.SECONDS)
	private Duration renewalInterval = Duration.ofSeconds(5);

	/**
	 * How long a lease lasts in the database after each renewal.
	 */
	@DurationUnit(ChronoUnit.SECONDS)
	private Duration leaseDuration = Duration.ofSeconds(15);

	/**
	 * How long after its last heartbeat a node still counts as live. Longer than the renewal interval, shorter than
	 * the lease duration.
	 */
	@DurationUnit(ChronoUnit.SECONDS)
	private Duration livenessWindow = Duration.ofSeconds(10);

	/**
	 * How long before its lease could expire in the database a leader stops believing it leads, by its own monotonic
	 * clock. Defaults to a tenth of the lease duration.
	 */
	@DurationUnit(ChronoUnit.SECONDS)
	private Duration safetyMargin;

	/**
	 * How long the document of a dead node stays before the leader (and a TTL index) removes it.
	 */
	@DurationUnit(ChronoUnit.SECONDS)
	private Duration deadNodeRetention = Duration.ofMinutes(10);

	/**
	 * Groups this node competes for the leadership of. Groups named by @LeaderOnly are added to these, and so is
	 * 'default', always: its leader keeps the member roster.
	 */
	private Set<String> groups = new LinkedHashSet<>(List.of("default"));

	/**
	 * Partitioned groups, by name, with their partition count (1 to 4096): the coordinator spreads each group's
	 * partitions over the members that declare it with the same count; one node owns each partition at a time.
	 */
	private Map<String, Integer> partitions = new LinkedHashMap<>();

	private final Rebalance rebalance = new Rebalance();

	private final Broadcast broadcast = new Broadcast();

	private final Shutdown shutdown = new Shutdown();

	private final Readiness readiness = new Readiness();

	private final LeaderOnly leaderOnly = new LeaderOnly();

	private final History history = new History();

	/**
	 * Whether the node drains (hands over what it holds and takes nothing) while the application's readiness refuses
	 * traffic, and undrains once it accepts traffic again.
	 */
	private boolean followReadiness = true;

	public boolean isFollowReadiness() {
		return this.followReadiness;
	}

	public void setFollowReadiness(boolean followReadiness) {
		this.followReadiness = followReadiness;
	}

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getNodeId() {
		return this.nodeId;
	}

	public void setNodeId(String nodeId) {
		this.nodeId = nodeId;
	}

	public String getAdvertisedAddress() {
		return this.advertisedAddress;
	}

	public void setAdvertisedAddress(String advertisedAddress) {
		this.advertisedAddress = advertisedAddress;
	}

	public Duration getRenewalInterval() {
		return this.renewalInterval;
	}

	public void setRenewalInterval(Duration renewalInterval) {
		this.renewalInterval = renewalInterval;
	}

	public Duration getLeaseDuration() {
		return this.leaseDuration;
	}

	public void setLeaseDuration(Duration leaseDuration) {
		this.leaseDuration = leaseDuration;
	}

	public Duration getLivenessWindow() {
		return this.livenessWindow;
	}

	public void setLivenessWindow(Duration livenessWindow) {
		this.livenessWindow = livenessWindow;
	}

	public Duration getSafetyMargin() {
		return this.safetyMargin;
	}

	public void setSafetyMargin(Duration safetyMargin) {
		this.safetyMargin = safetyMargin;
	}

	public Duration getDeadNodeRetention() {
		return this.deadNodeRetention;
	}

	public void setDeadNodeRetention(Duration deadNodeRetention) {
		this.deadNodeRetention = deadNodeRetention;
	}

	public Set<String> getGroups() {
		return this.groups;
	}

	public void setGroups(Set<String> groups) {
		this.groups = groups;
	}

	public Map<String, Integer> getPartitions() {
		return this.partitions;
	}

	public void setPartitions(Map<String, Integer> partitions) {
		this.partitions = partitions;
	}

	public Rebalance getRebalance() {
		return this.rebalance;
	}

	public String getStore() {
		return this.store;
	}

	public void setStore(String store) {
		this.store = store;
	}

	public Broadcast getBroadcast() {
		return this.broadcast;
	}

	public LeaderOnly getLeaderOnly() {
		return this.leaderOnly;
	}

	public History getHistory() {
		return this.history;
	}

	public Shutdown getShutdown() {
		return this.shutdown;
	}

	public Readiness getReadiness() {
		return this.readiness;
	}

	public static class History {

		/**
		 * Whether every run of guarded work is recorded in the cluster's run history (the store's, for example the
		 * MongoDB collection membership.mongo.runs-collection), read at /actuator/cluster/runs.
		 */
		private boolean enabled = true;

		/** How long a run stays in the history (an expiry by age: a TTL index on MongoDB). */
		@DurationUnit(ChronoUnit.DAYS)
		private Duration retention = Duration.ofDays(7);

		/** How many runs of each job (and partition) the history keeps per node process; older ones are replaced. */
		private int maxRuns = 100;

		/**
		 * How many runs a node keeps in memory while the store cannot be reached; beyond that the oldest are dropped
		 * and counted (membership.history.dropped).
		 */
		private int buffer = 10_000;

		/**
		 * What the history keeps of an error a run threw (and of an operator's action that was refused): 'message',
		 * the exception's class and the first line of its message with credentials taken out (user:password@ in URIs,
		 * password=, secret=, token= values), at most 300 characters; 'class', the class only. Whoever may read
		 * /actuator/cluster/runs reads it.
		 */
		private ErrorDetail errorDetail = ErrorDetail.MESSAGE;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getRetention() {
			return this.retention;
		}

		public void setRetention(Duration retention) {
			this.retention = retention;
		}

		public int getMaxRuns() {
			return this.maxRuns;
		}

		public void setMaxRuns(int maxRuns) {
			this.maxRuns = maxRuns;
		}

		public int getBuffer() {
			return this.buffer;
		}

		public void setBuffer(int buffer) {
			this.buffer = buffer;
		}

		public ErrorDetail getErrorDetail() {
			return this.errorDetail;
		}

		public void setErrorDetail(ErrorDetail errorDetail) {
			this.errorDetail = errorDetail;
		}

		/** What the run history keeps of an error. */
		public enum ErrorDetail {

			/** The exception's class and the first line of its message, credentials taken out. */
			MESSAGE,

			/** The exception's class only. */
			CLASS

		}

	}

	public static class Readiness {

		/**
		 * Whether the application's readiness waits (REFUSING_TRAFFIC, OUT_OF_SERVICE on the probe) until this node has
		 * made its first read of the cluster.
		 */
		private boolean enabled = true;

		/**
		 * How long readiness waits for membership at most; then the node reports ready anyway and logs why at WARN.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private Duration timeout = Duration.ofSeconds(30);

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

	}

	public static class LeaderOnly {

		/**
		 * Whether startup fails when @LeaderOnly or @ForEachOwnedPartition methods are @Scheduled but scheduling is
		 * not enabled (no @EnableScheduling), so that they would never run. Turn it off only if the application calls
		 * those methods itself.
		 */
		private boolean requireScheduling = true;

		/**
		 * How long a run of a @LeaderOnly or @ForEachOwnedPartition method may take when its annotation sets no
		 * maxRunTime. Past it the run counts as hung: it is logged with its thread's stack, health reports it, and the
		 * node hands the group (or partition) over and stays out of the race for it while the run goes on. Unset: no
		 * limit.
		 */
		private Duration maxRunTime;

		/**
		 * How late a fire of a @LeaderOnly @Scheduled(cron or fixedRate) method that no node could run on time (a
		 * failover, the whole cluster down, a run that overran) may still run, as soon as a node leads, when its
		 * annotation sets no catchUp. Unset: one period of the schedule, at most an hour; 0: never.
		 */
		private Duration catchUp;

		public Duration getCatchUp() {
			return this.catchUp;
		}

		public void setCatchUp(Duration catchUp) {
			this.catchUp = catchUp;
		}

		public Duration getMaxRunTime() {
			return this.maxRunTime;
		}

		public void setMaxRunTime(Duration maxRunTime) {
			this.maxRunTime = maxRunTime;
		}

		public boolean isRequireScheduling() {
			return this.requireScheduling;
		}

		public void setRequireScheduling(boolean requireScheduling) {
			this.requireScheduling = requireScheduling;
		}

	}

	public static class Shutdown {

		/**
		 * How long a graceful stop (or a resign) waits for running @LeaderOnly work of a group to finish, renewing the
		 * lease meanwhile, before it hands the group over anyway and logs which methods still run. Zero hands over at
		 * once. Keep it below spring.lifecycle.timeout-per-shutdown-phase and the platform's grace period.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private Duration drainTimeout = Duration.ofSeconds(20);

		public Duration getDrainTimeout() {
			return this.drainTimeout;
		}

		public void setDrainTimeout(Duration drainTimeout) {
			this.drainTimeout = drainTimeout;
		}

	}

	public static class Broadcast {

		/**
		 * Whether nodes can broadcast to each other (needs a web server: servlet or reactive).
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
		 * How long a message id is remembered to drop duplicates. Messages whose timestamp is more than half of it
		 * away from the receiver's database-time estimate are rejected as replays.
		 */
		@DurationUnit(ChronoUnit.SECONDS)
		private Duration dedupeWindow = Duration.ofMinutes(1);

		/**
		 * Largest message accepted.
		 */
		private DataSize maxBodySize = DataSize.ofKilobytes(64);

		/**
		 * HMAC-SHA256 keys, at least 32 bytes each: the first signs, all verify. Empty: a key generated once and
		 * kept in MongoDB (collection membership.mongo.keys-collection).
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

	/** How the coordinator rebalances partitioned groups. */
	public static class Rebalance {

		/**
		 * How many of a partitioned group's partitions a rebalance moves per interval, in percent of them (at least
		 * one partition), 1 to 100 (no limit). Moves away from departed members and operators' moves are never
		 * limited.
		 */
		private int maxMovesPercent = 10;

		/**
		 * How long a member that stopped keeps its place in the placement, so that it finds its partitions again when
		 * it comes back under the same node id (set membership.node-id to a stable id, such as a StatefulSet's pod
		 * name): its partitions are released after the drain and wait, unowned, meanwhile; a member gone longer (a
		 * crashed one too) has them moved. 0 (the default) moves them at once.
		 */
		private Duration restartGrace = Duration.ZERO;

		public Duration getRestartGrace() {
			return this.restartGrace;
		}

		public void setRestartGrace(Duration restartGrace) {
			this.restartGrace = restartGrace;
		}

		public int getMaxMovesPercent() {
			return this.maxMovesPercent;
		}

		public void setMaxMovesPercent(int maxMovesPercent) {
			this.maxMovesPercent = maxMovesPercent;
		}

	}

}
