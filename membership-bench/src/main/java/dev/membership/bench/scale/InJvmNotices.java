package dev.membership.bench.scale;

import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import dev.membership.spi.NoticeChannel;
import dev.membership.spi.NoticeReceiver;

/**
 * What {@code LeadershipNotices} carries over HTTP in a web application, between the
 * bench's nodes in one JVM, as the nodes' notice channel: a let-go notice to its
 * successor alone (else to the others without its name), and the keeper's roster notice
 * to the nodes it moves partitions for. Off: the nodes learn everything from their reads
 * (plain Java without broadcast).
 */
final class InJvmNotices {

	private final boolean on;

	private final Map<String, NoticeReceiver> receivers = new ConcurrentHashMap<>();

	InJvmNotices(boolean on) {
		this.on = on;
	}

	/**
	 * Node {@code id}'s channel: where it hears the others, and how it tells them of a
	 * roster.
	 */
	NoticeChannel channel(String id) {
		return new NoticeChannel() {

			@Override
			public void connect(NoticeReceiver receiver) {
				InJvmNotices.this.receivers.put(id, receiver);
			}

			@Override
			public void letGo(Map<String, Long> leases, @Nullable String successor) {
				// as LeadershipNotices does: the successor alone, else the others without
				// its name
				if (!InJvmNotices.this.on) {
					return;
				}
				NoticeReceiver named = (successor != null && !successor.equals(id))
						? InJvmNotices.this.receivers.get(successor) : null;
				leases.forEach((lease, epoch) -> {
					if (named != null) {
						named.leaseReleased(lease, epoch, id, successor);
						return;
					}
					InJvmNotices.this.receivers.forEach((other, receiver) -> {
						if (!other.equals(id)) {
							receiver.leaseReleased(lease, epoch, id, null);
						}
					});
				});
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

	/**
	 * Node {@code id} is told nothing more (it left); its own notices still reach the
	 * others.
	 */
	void remove(String id) {
		this.receivers.remove(id);
	}

	void clear() {
		this.receivers.clear();
	}

}
