package dev.membership.spi;

import dev.membership.leadership.LeaderInfo;

/** A node's ear for other nodes' leadership news, given to its {@link NoticeChannel}s. Thread-safe; never blocks. */
public interface NoticeReceiver {

	/** Another node released the lease of {@code group} that it held with {@code epoch}: try to acquire at once. */
	void leaseReleased(String group, long epoch);

	/** Another node was elected leader of {@code leader.group()}: remembered if newer than what is known. */
	void leaderElected(LeaderInfo leader);

}
