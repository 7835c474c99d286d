package dev.membership.spi;

import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * Where a node hears other nodes' leadership news as it happens (a lease just released, a
 * leader just elected), so that a hand-over takes milliseconds rather than the next read
 * of the leases: the starter's broadcast, or a simulator. The news is advisory: the lease
 * in the store decides every leadership, so a lost, late, repeated or false notice costs
 * at most one store call, or a leader reported for at most a lease: no notice makes a
 * node believe what the store does not say. A channel should still carry only what the
 * node said, authenticated. A node says that it let go through {@link #letGo}, and its
 * other news as events ({@code LeaderElectedEvent}) that a channel's reaction carries to
 * the others.
 */
@FunctionalInterface
public interface NoticeChannel {

	/** Called once, as the node starts, with where to deliver the others' news. */
	void connect(NoticeReceiver receiver);

	/**
	 * This node let go of {@code leases} (lease name to the epoch it held it with), all
	 * for {@code successor} (null: none named): their leader-only work drained and its
	 * beliefs ended, and the releases were written (or tried: a successor's attempt then
	 * finds what the store holds). Called the moment that is so: tell the successor now
	 * ({@link NoticeReceiver#leaseReleased(String, long, String, String)} with this
	 * node's id for each), and the others when there is none or it cannot be reached,
	 * then without its name (a successor that cannot be reached may have left: each of
	 * the others decides by its own view of the placement). May block for it (at most the
	 * channel's own timeouts): the engine calls it on its reactions lane, never on its
	 * loop or watchdog. By default nothing: the others see the releases in their next
	 * read of the leases.
	 */
	default void letGo(Map<String, Long> leases, @Nullable String successor) {
	}

	/**
	 * This node, as the keeper of the roster, wrote version {@code version} of it, which
	 * places units of work differently for {@code nodes} (they give some up or take some
	 * on): tell each of them ({@link NoticeReceiver#rosterChanged(long)}), so that they
	 * read it now instead of at their next interval. Called on the node's reactions lane,
	 * never its loop; should not block for long. By default nothing: they read it within
	 * one interval.
	 */
	default void rosterChanged(long version, Set<String> nodes) {
	}

}
