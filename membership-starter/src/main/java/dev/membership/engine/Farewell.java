package dev.membership.engine;

import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.spi.MembershipStore;

/** The release of a lease this node no longer leads under, and the goodbye of a graceful stop, as loop jobs. */
final class Farewell {

	private static final Logger log = LoggerFactory.getLogger(MembershipNode.class);

	private final MembershipStore store;

	private final NodeLoop loop;

	private final Self self;

	private final Heartbeats heartbeats;

	private final Lifecycle lifecycle;

	Farewell(MembershipStore store, NodeLoop loop, Self self, Heartbeats heartbeats, Lifecycle lifecycle) {
		this.store = store;
		this.loop = loop;
		this.self = self;
		this.heartbeats = heartbeats;
		this.lifecycle = lifecycle;
	}

	/**
	 * Releases the lease of {@code unit} held with {@code epoch}; the others see it in their next read of the leases,
	 * or at once through the notice, which names {@code successor} (the node a move hands it to) when not null. Heartbeats first: the released lease no longer keeps this node live, and the
	 * keeper must not take it for gone meanwhile.
	 */
	LoopJob release(GroupElection unit, long epoch, @Nullable String successor) {
		String group = unit.name();
		LoopJob job = new LoopJob("release of group " + group,
				(ex) -> log.warn("Membership release of group {} failed: {}", group, ex.getMessage()));
		job.then((j) -> {
			if (this.lifecycle.ticks()) {
				this.heartbeats.beat(j, (ex) -> true); // the release matters more
			}
			else {
				j.next();
			}
		});
		return job.then((j) -> this.loop.call(j, () -> this.store.release(group, this.self.holder(), epoch),
				(released, sent, received) -> {
					if (released) {
						unit.events().released(epoch, successor);
					}
				}, (ex) -> false));
	}

	private void releaseOne(LoopJob job, GroupElection unit, long epoch) {
		this.loop.call(job, () -> this.store.release(unit.name(), this.self.holder(), epoch), (done, sent, received) -> {
			if (done) {
				unit.events().released(epoch, null);
			}
		}, (ex) -> {
			log.warn("Could not release lease of {} on shutdown: {}", unit.name(), ex.getMessage());
			return true;
		});
	}

	/**
	 * The goodbye of a graceful stop: {@code beforehand} (on the loop, first), then releases the given leases (epochs
	 * by group) and removes this node's document.
	 */
	LoopJob leave(Map<GroupElection, Long> released, Runnable beforehand) {
		LoopJob job = new LoopJob("leave", (ex) -> {
		});
		job.then((j) -> {
			this.loop.cancelScheduled();
			beforehand.run();
			j.next();
		});
		// every lease in one call; when not every one was released so (one had gone, the call failed), one by one
		Map<String, Long> epochs = new java.util.LinkedHashMap<>();
		released.forEach((unit, epoch) -> epochs.put(unit.name(), epoch));
		job.then((j) -> {
			if (epochs.isEmpty()) {
				j.next();
				return;
			}
			this.loop.call(j, () -> this.store.releaseAll(this.self.holder(), epochs), (count, sent, received) -> {
				if (count == epochs.size()) {
					released.forEach((unit, epoch) -> unit.events().released(epoch, null));
				}
				else {
					released.forEach((unit, epoch) -> j.now((w) -> releaseOne(w, unit, epoch)));
				}
			}, (ex) -> {
				released.forEach((unit, epoch) -> j.now((w) -> releaseOne(w, unit, epoch)));
				return true;
			});
		});
		return job.then((j) -> this.loop.call(j, () -> {
			this.store.removeNode(this.self.nodeId(), this.self.incarnation());
			return null;
		}, (nothing, sent, received) -> {
		}, (ex) -> {
			log.warn("Could not remove node document on shutdown: {}", ex.getMessage());
			return true;
		}));
	}

}
