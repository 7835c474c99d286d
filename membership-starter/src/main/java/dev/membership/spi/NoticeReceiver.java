package dev.membership.spi;

import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

import dev.membership.leadership.LeaderInfo;

/**
 * A node's ear for other nodes' leadership news, given to its {@link NoticeChannel}s.
 * Thread-safe; never blocks.
 */
public interface NoticeReceiver {

	/**
	 * Node {@code holder} let go of the lease of {@code group} that it held with
	 * {@code epoch}, and wrote its release: try for it at once if it is this node's to
	 * take: {@code successor}'s when the notice names one, else the node the placement
	 * names. Null {@code holder} or {@code successor}: not said. Returns at once; the
	 * stage completes (never exceptionally) once this node's attempt, if it made one, is
	 * over. The attempt is an ordinary acquisition: the store decides.
	 */
	CompletionStage<Void> leaseReleased(String group, long epoch, @Nullable String holder, @Nullable String successor);

	/**
	 * As {@link #leaseReleased(String, long, String, String)} from a sender that says
	 * neither who nor to whom.
	 */
	default CompletionStage<Void> leaseReleased(String group, long epoch) {
		return leaseReleased(group, epoch, null, null);
	}

	/**
	 * The keeper wrote version {@code version} of the roster, which moves units of work
	 * to or from this node: read it now (once, when this node has not read that version
	 * yet). Returns at once. By default nothing.
	 */
	default void rosterChanged(long version) {
	}

	/**
	 * Another node was elected leader of {@code leader.group()}: remembered if newer than
	 * what is known.
	 */
	void leaderElected(LeaderInfo leader);

}
