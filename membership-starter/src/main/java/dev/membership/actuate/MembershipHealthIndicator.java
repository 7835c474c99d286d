package dev.membership.actuate;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeSet;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

import dev.membership.Membership;
import dev.membership.MembershipStatus;

/**
 * UP while this node's heartbeats are current; DOWN once it has not reached the store for
 * longer than the liveness window (other nodes then count it as dead); UNKNOWN while it
 * has not heartbeated yet; OUT_OF_SERVICE while it is alive but not ready (before its
 * first read of the cluster, or while every acquisition of a lease fails).
 */
public class MembershipHealthIndicator extends AbstractHealthIndicator {

	private final Membership membership;

	private final Duration livenessWindow;

	public MembershipHealthIndicator(Membership membership, Duration livenessWindow) {
		super("Membership health check failed");
		this.membership = membership;
		this.livenessWindow = livenessWindow;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		MembershipStatus status = this.membership.status();
		Duration age = status.lastHeartbeatAge();
		if (!status.running()) {
			builder.down();
		}
		else if (age == null) {
			builder.unknown();
		}
		else if (age.compareTo(this.livenessWindow) > 0) {
			builder.down();
		}
		else if (!status.ready()) {
			// alive, but not yet through its first read of the cluster, or failing every
			// acquisition of a lease: it would never lead
			builder.outOfService();
		}
		else {
			builder.up();
		}
		Map<String, Object> groups = new LinkedHashMap<>();
		for (String group : new TreeSet<>(this.membership.groups())) {
			if (this.membership.partitionedGroups().contains(group)) {
				Map<String, Object> detail = new LinkedHashMap<>();
				detail.put("role", "partitioned");
				detail.put("owned", this.membership.partitions(group).owned().size());
				groups.put(group, detail);
				continue;
			}
			Map<String, Object> detail = new LinkedHashMap<>();
			detail.put("role", this.membership.isLeader(group) ? "leader" : "follower");
			this.membership.leader(group).ifPresent((leader) -> {
				detail.put("leader", leader.nodeId());
				detail.put("epoch", leader.epoch());
			});
			groups.put(group, detail);
		}
		builder.withDetail("nodeId", this.membership.nodeId())
			.withDetail("ready", status.ready())
			.withDetail("groups", groups)
			.withDetail("liveMembers", this.membership.liveMembers().size())
			.withDetail("lastHeartbeatAge", (age != null) ? age.toMillis() + "ms" : "none yet")
			.withDetail("consecutiveFailures", status.consecutiveFailures())
			.withDetail("duplicateNodeId", status.duplicateNodeId())
			.withDetail("drained", status.drained())
			.withDetail("hungRuns", status.hungRuns().stream().map(MembershipHealthIndicator::hungRun).toList());
		if (status.lastError() != null) {
			builder.withDetail("lastError", status.lastError());
		}
	}

	/**
	 * A hung run as health shows it: the node stays UP (its membership is fine), and says
	 * which run hangs.
	 */
	private static Map<String, Object> hungRun(MembershipStatus.HungRun run) {
		Map<String, Object> detail = new LinkedHashMap<>();
		detail.put("job", run.job());
		detail.put("group", run.group());
		if (run.partition() != null) {
			detail.put("partition", run.partition());
		}
		detail.put("epoch", run.epoch());
		detail.put("runningSince", (run.runningSince() != null) ? run.runningSince().toString() : null);
		detail.put("runningFor", run.runningFor().toMillis() + "ms");
		return detail;
	}

}
