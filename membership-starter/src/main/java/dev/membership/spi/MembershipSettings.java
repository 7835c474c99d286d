package dev.membership.spi;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;

import dev.membership.InvalidMembershipSettingsException;
import dev.membership.InvalidMembershipSettingsException.Violation;

/**
 * How a node runs. Defaults follow the core design: renew every 5 s, lease 15 s, liveness
 * window 10 s.
 */
public final class MembershipSettings {

	public static final String DEFAULT_GROUP = "default";

	/**
	 * What joins a partitioned group's name and a partition's number in the name of the
	 * partition's lease ({@code tenants#3}); a group's name cannot contain it.
	 */
	public static final char PARTITION_SEPARATOR = '#';

	/**
	 * At most this many partitions per group: the placement lives in the roster, one
	 * document.
	 */
	public static final int MAX_PARTITIONS = 4096;

	private final String nodeId;

	private final Duration renewalInterval;

	private final Duration leaseDuration;

	private final Duration livenessWindow;

	private final Duration safetyMargin;

	private final Duration deadNodeRetention;

	private final Duration clockSyncInterval;

	private final Duration drainTimeout;

	private final Set<String> groups;

	private final Map<String, Integer> partitions;

	private final int maxMovesPercent;

	private final Duration restartGrace;

	private MembershipSettings(Builder b) {
		this.nodeId = b.nodeId;
		this.renewalInterval = b.renewalInterval;
		this.leaseDuration = b.leaseDuration;
		this.livenessWindow = b.livenessWindow;
		this.safetyMargin = (b.safetyMargin != null) ? b.safetyMargin
				: (b.leaseDuration != null ? b.leaseDuration.dividedBy(10) : null);
		this.deadNodeRetention = b.deadNodeRetention;
		this.clockSyncInterval = b.clockSyncInterval;
		this.drainTimeout = b.drainTimeout;
		Set<String> groups = new LinkedHashSet<>(b.groups);
		// every node takes part: its leader keeps the member roster
		groups.add(DEFAULT_GROUP);
		groups.removeAll(b.partitions.keySet());
		this.groups = Set.copyOf(groups);
		this.partitions = Map.copyOf(b.partitions);
		this.maxMovesPercent = b.maxMovesPercent;
		this.restartGrace = b.restartGrace;
	}

	public static Builder builder(String nodeId) {
		return new Builder(nodeId);
	}

	public String nodeId() {
		return this.nodeId;
	}

	public Duration renewalInterval() {
		return this.renewalInterval;
	}

	public Duration leaseDuration() {
		return this.leaseDuration;
	}

	public Duration livenessWindow() {
		return this.livenessWindow;
	}

	/**
	 * How long before the lease can expire in the database a leader stops believing it
	 * leads.
	 */
	public Duration safetyMargin() {
		return this.safetyMargin;
	}

	public Duration deadNodeRetention() {
		return this.deadNodeRetention;
	}

	public Duration clockSyncInterval() {
		return this.clockSyncInterval;
	}

	/**
	 * How long a graceful stop or a resign waits for running leader-only work before it
	 * hands the group over anyway.
	 */
	public Duration drainTimeout() {
		return this.drainTimeout;
	}

	/** The plain groups this node competes for, the default group among them. */
	public Set<String> groups() {
		return this.groups;
	}

	/**
	 * The partitioned groups this node takes part in, with their partition counts (two or
	 * more).
	 */
	public Map<String, Integer> partitions() {
		return this.partitions;
	}

	/**
	 * Why {@code group} cannot be a group's name, or null when it can: blank, the id of
	 * the roster document (which lives among the lease documents), or a name with a
	 * partition's separator.
	 */
	/**
	 * How many of a partitioned group's partitions the coordinator moves per interval to
	 * rebalance, as a percentage of its partitions (at least one); moves away from
	 * departed members and operators' moves are never limited.
	 */
	public int maxMovesPercent() {
		return this.maxMovesPercent;
	}

	/**
	 * How long a member that stopped (or was last seen) keeps its place in the placement:
	 * its partitions wait for it to come back under the same node id instead of moving;
	 * zero (the default): they move as soon as it is gone.
	 */
	public Duration restartGrace() {
		return this.restartGrace;
	}

	public static @Nullable String groupNameProblem(@Nullable String group) {
		return SettingsRules.groupNameProblem(group);
	}

	/** Every rule the settings break; empty when they are valid. */
	public static List<Violation> check(String nodeId, Duration renewalInterval, Duration leaseDuration,
			Duration livenessWindow, Duration safetyMargin, Duration deadNodeRetention) {
		return SettingsRules.check(nodeId, renewalInterval, leaseDuration, livenessWindow, safetyMargin,
				deadNodeRetention);
	}

	/**
	 * The restart grace's problems (see {@link Builder#restartGrace(Duration)}); empty
	 * when it is valid.
	 */
	public static List<Violation> restartGraceProblems(Duration grace, Duration deadNodeRetention) {
		return SettingsRules.restartGraceProblems(grace, deadNodeRetention);
	}

	public static final class Builder {

		private final String nodeId;

		private Duration renewalInterval = Duration.ofSeconds(5);

		private Duration leaseDuration = Duration.ofSeconds(15);

		private Duration livenessWindow = Duration.ofSeconds(10);

		private Duration safetyMargin;

		private Duration deadNodeRetention = Duration.ofMinutes(10);

		private Duration clockSyncInterval = Duration.ofSeconds(30);

		private Duration drainTimeout = Duration.ofSeconds(20);

		private final Set<String> groups = new LinkedHashSet<>(Set.of(DEFAULT_GROUP));

		private final Map<String, Integer> partitions = new TreeMap<>();

		private int maxMovesPercent = 10;

		private Duration restartGrace = Duration.ZERO;

		private Builder(String nodeId) {
			this.nodeId = nodeId;
		}

		public Builder renewalInterval(Duration value) {
			this.renewalInterval = value;
			return this;
		}

		public Builder leaseDuration(Duration value) {
			this.leaseDuration = value;
			return this;
		}

		public Builder livenessWindow(Duration value) {
			this.livenessWindow = value;
			return this;
		}

		/** Null means a tenth of the lease duration. */
		public Builder safetyMargin(Duration value) {
			this.safetyMargin = value;
			return this;
		}

		public Builder deadNodeRetention(Duration value) {
			this.deadNodeRetention = value;
			return this;
		}

		public Builder clockSyncInterval(Duration value) {
			this.clockSyncInterval = Objects.requireNonNull(value);
			return this;
		}

		/** Zero hands over at once, without waiting for running leader-only work. */
		public Builder drainTimeout(Duration value) {
			if (value == null || value.isNegative()) {
				throw new InvalidMembershipSettingsException(List
					.of(new Violation(List.of("shutdown.drain-timeout"), "must not be negative (was " + value + ")")));
			}
			this.drainTimeout = value;
			return this;
		}

		/**
		 * Replaces the groups this node competes for. The default group is always one of
		 * them: its leader keeps the member roster, so every node must be able to take
		 * that over.
		 */
		public Builder groups(Set<String> value) {
			this.groups.clear();
			this.groups.addAll(value);
			return this;
		}

		/**
		 * Makes {@code group} a partitioned group of {@code count} partitions, which the
		 * coordinator spreads over the members that take part. A count of one makes it a
		 * plain group (its leadership placed by the coordinator).
		 */
		public Builder partitions(String group, int count) {
			if (count == 1) {
				this.partitions.remove(group);
				this.groups.add(group);
			}
			else {
				this.partitions.put(group, count);
			}
			return this;
		}

		/**
		 * How many of a group's partitions a rebalance moves per interval, in percent of
		 * them (at least one partition): 10 by default, 100 for no limit. A scale-out
		 * then moves a tenth of the partitions each interval instead of all it needs at
		 * once.
		 */
		public Builder maxMovesPercent(int value) {
			if (value < 1 || value > 100) {
				throw new InvalidMembershipSettingsException(List.of(new Violation(
						List.of("rebalance.max-moves-percent"), "must be between 1 and 100 (was " + value + ")")));
			}
			this.maxMovesPercent = value;
			return this;
		}

		/**
		 * How long a member that stopped keeps its place in the placement, for a restart
		 * under the same node id (a StatefulSet's pod name): its partitions are released
		 * after the drain and wait, unowned, for it to come back, and move only once it
		 * has been gone that long (a crashed member's too). Zero by default: they move at
		 * once. Shorter than the dead-node retention, or its document would be removed
		 * before the grace ended.
		 */
		public Builder restartGrace(Duration value) {
			this.restartGrace = value;
			return this;
		}

		/**
		 * {@link #partitions(String, int)} for each entry of {@code counts} (group to
		 * partition count).
		 */
		public Builder partitions(Map<String, Integer> counts) {
			counts.forEach(this::partitions);
			return this;
		}

		/**
		 * Validates and builds; throws {@link InvalidMembershipSettingsException} naming
		 * every broken rule.
		 */
		public MembershipSettings build() {
			List<Violation> violations = new ArrayList<>(check(this.nodeId, this.renewalInterval, this.leaseDuration,
					this.livenessWindow, this.safetyMargin, this.deadNodeRetention));
			this.groups.stream()
				.map(MembershipSettings::groupNameProblem)
				.filter(Objects::nonNull)
				.distinct()
				.forEach((problem) -> violations.add(new Violation(List.of("groups"), problem)));
			violations.addAll(SettingsRules.partitionProblems(this.partitions));
			violations.addAll(SettingsRules.restartGraceProblems(this.restartGrace, this.deadNodeRetention));
			if (!violations.isEmpty()) {
				throw new InvalidMembershipSettingsException(violations);
			}
			return new MembershipSettings(this);
		}

	}

}
