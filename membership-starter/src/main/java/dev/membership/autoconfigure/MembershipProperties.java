package dev.membership.autoconfigure;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.boot.convert.DurationUnit;

/**
 * Cluster membership: the node, its timings, groups and partitions; each other concern's
 * properties are a class of their own beside it ({@link BroadcastProperties},
 * {@link HistoryProperties}, {@link LeaderOnlyProperties}, {@link ReadinessProperties},
 * {@link RebalanceProperties}, {@link ShutdownProperties}), and each store module's in
 * that module. A duration written without a unit is read in seconds
 * ({@code lease-duration=15} is 15 s), as the design writes them; use {@code ms} for
 * shorter ones.
 */
@ConfigurationProperties("membership")
public class MembershipProperties {

	/**
	 * Whether this application joins the cluster.
	 */
	private boolean enabled = true;

	/**
	 * Id of this node, unique in the cluster. Defaults to spring.application.name (or
	 * "membership") plus a random suffix, new at every start.
	 */
	private String nodeId;

	/**
	 * Which store keeps the leases and the roster when the application could use more
	 * than one: mongodb (membership-mongodb) or jdbc (PostgreSQL, membership-jdbc).
	 * Unset, the one the application has is used.
	 */
	private String store;

	/**
	 * Address other nodes use to reach this one, as host:port or a URL. Defaults to this
	 * host's address and the web server's port.
	 */
	private String advertisedAddress;

	/**
	 * How often every node heartbeats and reads the member list, the leader renews its
	 * lease and followers try to acquire. At most half the lease duration.
	 */
	@DurationUnit(ChronoUnit.SECONDS)
	private Duration renewalInterval = Duration.ofSeconds(5);

	/**
	 * How long a lease lasts in the database after each renewal.
	 */
	@DurationUnit(ChronoUnit.SECONDS)
	private Duration leaseDuration = Duration.ofSeconds(15);

	/**
	 * How long after its last heartbeat a node still counts as live. Longer than the
	 * renewal interval, shorter than the lease duration.
	 */
	@DurationUnit(ChronoUnit.SECONDS)
	private Duration livenessWindow = Duration.ofSeconds(10);

	/**
	 * How long before its lease could expire in the database a leader stops believing it
	 * leads, by its own monotonic clock. Defaults to a tenth of the lease duration.
	 */
	@DurationUnit(ChronoUnit.SECONDS)
	private Duration safetyMargin;

	/**
	 * How long the document of a dead node stays before the leader (and a TTL index)
	 * removes it.
	 */
	@DurationUnit(ChronoUnit.SECONDS)
	private Duration deadNodeRetention = Duration.ofMinutes(10);

	/**
	 * Groups this node competes for the leadership of. Groups named by @LeaderOnly are
	 * added to these, and so is 'default', always: its leader keeps the member roster.
	 */
	private Set<String> groups = new LinkedHashSet<>(List.of("default"));

	/**
	 * Partitioned groups, by name, with their partition count (1 to 4096): the
	 * coordinator spreads each group's partitions over the members that declare it with
	 * the same count; one node owns each partition at a time.
	 */
	private Map<String, Integer> partitions = new LinkedHashMap<>();

	@NestedConfigurationProperty
	private final RebalanceProperties rebalance = new RebalanceProperties();

	@NestedConfigurationProperty
	private final BroadcastProperties broadcast = new BroadcastProperties();

	@NestedConfigurationProperty
	private final ShutdownProperties shutdown = new ShutdownProperties();

	@NestedConfigurationProperty
	private final ReadinessProperties readiness = new ReadinessProperties();

	@NestedConfigurationProperty
	private final LeaderOnlyProperties leaderOnly = new LeaderOnlyProperties();

	@NestedConfigurationProperty
	private final HistoryProperties history = new HistoryProperties();

	/**
	 * Whether the node drains (hands over what it holds and takes nothing) while the
	 * application's readiness refuses traffic, and undrains once it accepts traffic
	 * again.
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

	public RebalanceProperties getRebalance() {
		return this.rebalance;
	}

	public String getStore() {
		return this.store;
	}

	public void setStore(String store) {
		this.store = store;
	}

	public BroadcastProperties getBroadcast() {
		return this.broadcast;
	}

	public LeaderOnlyProperties getLeaderOnly() {
		return this.leaderOnly;
	}

	public HistoryProperties getHistory() {
		return this.history;
	}

	public ShutdownProperties getShutdown() {
		return this.shutdown;
	}

	public ReadinessProperties getReadiness() {
		return this.readiness;
	}

}
