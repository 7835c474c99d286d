package dev.membership.engine.term;

import dev.membership.spi.MembershipSettings;

/**
 * One unit of work a node can own, under a lease of its own: a plain group's leadership
 * ({@code partitions} 1, the lease named after the group), or one partition of a
 * partitioned group (the lease {@code group#partition}).
 */
public record Unit(String group, int partition, int partitions) {

	/**
	 * Between a group's name and a partition's number in the partition's lease name;
	 * never in a group's name.
	 */
	public static final char SEPARATOR = MembershipSettings.PARTITION_SEPARATOR;

	public static Unit group(String group) {
		return new Unit(group, 0, 1);
	}

	public boolean isPartition() {
		return this.partitions > 1;
	}

	/** The lease's name: the lease document's id. */
	public String leaseName() {
		return isPartition() ? this.group + SEPARATOR + this.partition : this.group;
	}

	public boolean isDefault() {
		return !isPartition() && MembershipSettings.DEFAULT_GROUP.equals(this.group);
	}

}
