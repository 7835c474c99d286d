package dev.membership.spi;

import dev.membership.event.MembershipEventListener;

/**
 * Called synchronously, in order, at the exact monotonic instants a node's belief that it
 * leads begins and ends. For tests and benchmarks that check that no two beliefs overlap;
 * applications want {@link MembershipEventListener}. Implementations must be fast and
 * must not block. What they throw is logged and ignored: it never changes what the node
 * does.
 */
public interface LeadershipObserver {

	void started(String nodeId, String group, long epoch, long atNanos);

	/**
	 * {@code atNanos} is when the belief ended: for a missed deadline, the deadline
	 * itself.
	 */
	void ended(String nodeId, String group, long epoch, long atNanos);

	static LeadershipObserver none() {
		return new LeadershipObserver() {
			@Override
			public void started(String nodeId, String group, long epoch, long atNanos) {
			}

			@Override
			public void ended(String nodeId, String group, long epoch, long atNanos) {
			}
		};
	}

}
