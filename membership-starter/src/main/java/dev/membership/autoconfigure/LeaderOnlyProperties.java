package dev.membership.autoconfigure;

import java.time.Duration;

/** {@code membership.leader-only.*}: a group of {@link MembershipProperties}. */
public class LeaderOnlyProperties {

	/**
	 * Whether startup fails when @LeaderOnly or @ForEachOwnedPartition methods
	 * are @Scheduled but scheduling is not enabled (no @EnableScheduling), so that they
	 * would never run. Turn it off only if the application calls those methods itself.
	 */
	private boolean requireScheduling = true;

	/**
	 * How long a run of a @LeaderOnly or @ForEachOwnedPartition method may take when its
	 * annotation sets no maxRunTime. Past it the run counts as hung: it is logged with
	 * its thread's stack, health reports it, and the node hands the group (or partition)
	 * over and stays out of the race for it while the run goes on. Unset: no limit.
	 */
	private Duration maxRunTime;

	/**
	 * How late a fire of a @LeaderOnly @Scheduled(cron or fixedRate) method that no node
	 * could run on time (a failover, the whole cluster down, a run that overran) may
	 * still run, as soon as a node leads, when its annotation sets no catchUp. Unset: one
	 * period of the schedule, at most an hour; 0: never.
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
