package dev.membership.spi;

import org.jspecify.annotations.Nullable;

import dev.membership.leadership.LeaderInfo;

/** A node's ear for other nodes' leadership news, given to its {@link NoticeChannel}s. Thread-safe; never blocks. */
public interface NoticeReceiver {

	/**
	 * Node {@code holder} released the lease of {@code group} that it held with {@code epoch}: try to acquire at once
	 * if it is this node's to take: {@code successor}'s when the release names one (a move), else the node the
	 * placement names. Null {@code holder} or {@code successor}: not said.
	 */
	void leaseReleased(String group, long epoch, @Nullable String holder, @Nullable String successor);

	/** As {@link #leaseReleased(String, long, String, String)} from a sender that says neither who nor to whom. */
	default void leaseReleased(String group, long epoch) {
		leaseReleased(group, epoch, null, null);
	}

	/** Another node was elected leader of {@code leader.group()}: remembered if newer than what is known. */
	void leaderElected(LeaderInfo leader);

}
