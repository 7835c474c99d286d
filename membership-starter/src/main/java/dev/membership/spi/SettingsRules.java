package dev.membership.spi;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.membership.InvalidMembershipSettingsException.Violation;

/**
 * The rules {@link MembershipSettings} must keep, each broken one a {@link Violation}
 * naming its settings.
 */
final class SettingsRules {

	private SettingsRules() {
	}

	/**
	 * Why {@code group} cannot be a group's name, or null when it can: blank, or the id
	 * of the roster document, which lives among the lease documents.
	 */
	static @Nullable String groupNameProblem(@Nullable String group) {
		if (group == null || group.isBlank()) {
			return "group names must not be blank";
		}
		if (Roster.ID.equals(group)) {
			return "'" + Roster.ID + "' is reserved for the member roster and cannot name a group";
		}
		if (group.indexOf(MembershipSettings.PARTITION_SEPARATOR) >= 0) {
			return "group names must not contain '" + MembershipSettings.PARTITION_SEPARATOR
					+ "' (it names a partition's lease: " + group + ")";
		}
		if (group.indexOf('.') >= 0 || group.startsWith("$")) {
			return "group names must not contain '.' or start with '$' (a group's name is the field of its fence, "
					+ "EpochFence's _fence.<group>): " + group;
		}
		return null;
	}

	/** Every rule the settings break; empty when they are valid. */
	static List<Violation> check(String nodeId, Duration renewalInterval, Duration leaseDuration,
			Duration livenessWindow, Duration safetyMargin, Duration deadNodeRetention) {
		List<Violation> violations = new ArrayList<>();
		if (nodeId == null || nodeId.isBlank()) {
			violations.add(new Violation(List.of("node-id"), "must not be blank"));
		}
		boolean positive = true;
		positive &= positive(violations, "renewal-interval", renewalInterval);
		positive &= positive(violations, "lease-duration", leaseDuration);
		positive &= positive(violations, "liveness-window", livenessWindow);
		positive(violations, "dead-node-retention", deadNodeRetention);
		if (safetyMargin != null && safetyMargin.isNegative()) {
			violations.add(new Violation(List.of("safety-margin"), "must not be negative (was " + safetyMargin + ")"));
		}
		if (!positive) {
			return violations;
		}
		if (renewalInterval.multipliedBy(2).compareTo(leaseDuration) > 0) {
			violations.add(new Violation(List.of("renewal-interval", "lease-duration"),
					"renewal-interval x 2 must not exceed lease-duration, so a leader can miss one renewal and keep "
							+ "its lease (was " + renewalInterval + " x 2 > " + leaseDuration + ")"));
		}
		if (livenessWindow.compareTo(renewalInterval) <= 0 || livenessWindow.compareTo(leaseDuration) >= 0) {
			violations.add(new Violation(List.of("renewal-interval", "liveness-window", "lease-duration"),
					"liveness-window must be longer than renewal-interval and shorter than lease-duration (was "
							+ renewalInterval + " < " + livenessWindow + " < " + leaseDuration + ")"));
		}
		Duration margin = (safetyMargin != null) ? safetyMargin : leaseDuration.dividedBy(10);
		if (!margin.isNegative() && margin.compareTo(leaseDuration.minus(renewalInterval)) >= 0) {
			violations.add(new Violation(List.of("safety-margin", "lease-duration", "renewal-interval"),
					"safety-margin must be shorter than lease-duration - renewal-interval, or a leader would step "
							+ "down before its next renewal (was " + margin + ")"));
		}
		if (deadNodeRetention != null && !deadNodeRetention.isNegative() && !deadNodeRetention.isZero()
				&& deadNodeRetention.compareTo(livenessWindow) <= 0) {
			violations.add(new Violation(List.of("dead-node-retention", "liveness-window"),
					"dead-node-retention must be longer than liveness-window, or live nodes would be removed (was "
							+ deadNodeRetention + ")"));
		}
		return violations;
	}

	private static boolean positive(List<Violation> violations, String name, Duration value) {
		if (value == null || value.isNegative() || value.isZero()) {
			violations.add(new Violation(List.of(name), "must be a positive duration (was " + value + ")"));
			return false;
		}
		return true;
	}

	/**
	 * The partitioned groups' problems: a name a group cannot have, the default group, a
	 * count out of range.
	 */
	static List<Violation> partitionProblems(Map<String, Integer> partitions) {
		List<Violation> violations = new ArrayList<>();
		partitions.forEach((group, count) -> {
			String problem = groupNameProblem(group);
			if (problem == null && MembershipSettings.DEFAULT_GROUP.equals(group)) {
				problem = "the default group cannot be partitioned: its leader keeps the roster";
			}
			if (problem == null && (count == null || count < 1 || count > MembershipSettings.MAX_PARTITIONS)) {
				problem = "a group has 1 to " + MembershipSettings.MAX_PARTITIONS + " partitions (" + group + ": "
						+ count + ")";
			}
			if (problem != null) {
				violations.add(new Violation(List.of("partitions"), problem));
			}
		});
		return violations;
	}

	/**
	 * The restart grace's problems: negative, or not shorter than the dead-node
	 * retention.
	 */
	static List<Violation> restartGraceProblems(Duration grace, Duration deadNodeRetention) {
		if (grace == null || grace.isNegative()) {
			return List.of(new Violation(List.of("rebalance.restart-grace"),
					"must be zero (off) or a positive duration (was " + grace + ")"));
		}
		if (!grace.isZero() && deadNodeRetention != null && grace.compareTo(deadNodeRetention) >= 0) {
			return List.of(new Violation(List.of("rebalance.restart-grace", "dead-node-retention"),
					"the restart grace (" + grace + ") must be shorter than the dead-node retention ("
							+ deadNodeRetention + "), or a stopped member's document would be removed, and its "
							+ "partitions moved, before the grace ended"));
		}
		return List.of();
	}

}
