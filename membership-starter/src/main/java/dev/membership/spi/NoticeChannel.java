package dev.membership.spi;

/**
 * Where a node hears other nodes' leadership news as it happens (a lease just released, a leader just elected), so that
 * a hand-over takes milliseconds rather than the next read of the leases: the starter's broadcast, or a simulator.
 * The news is advisory: the lease in the store decides every leadership, so a lost, late, repeated or false notice
 * costs at most one store call. A node sends its own news as events ({@code LeaseReleasedEvent},
 * {@code LeaderElectedEvent}) that a channel's reaction carries to the others.
 */
@FunctionalInterface
public interface NoticeChannel {

	/** Called once, as the node starts, with where to deliver the others' news. */
	void connect(NoticeReceiver receiver);

}
