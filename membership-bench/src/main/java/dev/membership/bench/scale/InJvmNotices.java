package dev.membership.bench.scale;

import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.membership.MembershipEventListener;
import dev.membership.leadership.PartitionReleasedEvent;
import dev.membership.spi.NoticeChannel;
import dev.membership.spi.NoticeReceiver;

/**
 * What {@code LeadershipNotices} carries over HTTP in a web application, between the bench's nodes in one JVM: a
 * released partition's notice to its successor alone (else to the others without its name), and the keeper's roster
 * notice to the nodes it moves partitions for. Off: the nodes learn everything from their reads (plain Java without
 * broadcast).
 */
final class InJvmNotices {

	private final boolean on;

	private final Map<String, NoticeReceiver> receivers = new ConcurrentHashMap<>();

	InJvmNotices(boolean on) {
		this.on = on;
	}

	/** Node {@code id}'s channel: where it hears the others, and how it tells them of a roster. */
	NoticeChannel channel(String id) {
		return new NoticeChannel() {

			@Override
			public void connect(NoticeReceiver receiver) {
				InJvmNotices.this.receivers.put(id, receiver);
			}

			@Override
			public void rosterChanged(long version, Set<String> nodes) {
				if (InJvmNotices.this.on) {
					nodes.stream()
						.map(InJvmNotices.this.receivers::get)
						.filter(Objects::nonNull)
						.forEach((receiver) -> receiver.rosterChanged(version));
				}
			}

		};
	}

	/** Node {@code id}'s reaction that tells the others of the partitions it released. */
	MembershipEventListener releases(String id) {
		return (event) -> {
			if (this.on && event instanceof PartitionReleasedEvent released) {
				String lease = released.group() + "#" + released.partition();
				NoticeReceiver successor = (released.successor() != null && !released.successor().equals(id))
						? this.receivers.get(released.successor()) : null;
				if (successor != null) {
					successor.leaseReleased(lease, released.epoch(), id, released.successor());
					return;
				}
				this.receivers.forEach((other, receiver) -> {
					if (!other.equals(id)) {
						receiver.leaseReleased(lease, released.epoch(), id, null);
					}
				});
			}
		};
	}

	/** Node {@code id} is told nothing more (it left); its own notices still reach the others. */
	void remove(String id) {
		this.receivers.remove(id);
	}

	void clear() {
		this.receivers.clear();
	}

}
