package dev.membership.engine;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.spi.NoticeChannel;
import dev.membership.spi.NoticeReceiver;

/**
 * Says that this node let go of a unit's term, the moment it has: after the drain, once the belief ended, before the
 * release is written. The notice channels carry it to the others at once (the successor may take the lease over from
 * that term without waiting for the release to land), and the release event tells this node's listeners. From the
 * loop or the watchdog; channels never block.
 */
final class LetGo {

	private static final Logger log = LoggerFactory.getLogger(MembershipNode.class);

	private volatile List<NoticeChannel> channels = List.of();

	/**
	 * Connects the node's channels to {@code notices} (where the others' news goes) and keeps them to say this node's:
	 * once, when the node starts (channels may be beans created after the node).
	 */
	void connect(NoticeReceiver notices, List<? extends NoticeChannel> built, List<? extends NoticeChannel> late) {
		List<NoticeChannel> all = new ArrayList<>(built);
		all.addAll(late);
		all.forEach((channel) -> channel.connect(notices));
		this.channels = List.copyOf(all);
	}

	/** {@code unit}'s term {@code epoch} is over here; {@code successor}: who should take it, when this node knows. */
	void said(GroupElection unit, long epoch, @Nullable String successor) {
		String lease = unit.unit().leaseName();
		for (NoticeChannel channel : this.channels) {
			try {
				channel.letGo(lease, epoch, successor);
			}
			catch (RuntimeException ex) {
				// advisory: the others see the release in their next read of the leases
				log.warn("Notice channel {} failed to tell that {} was let go of: {}", channel, lease, ex.toString());
			}
		}
		unit.events().released(epoch, successor);
	}

}
