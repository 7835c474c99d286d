package dev.membership.engine.election;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.engine.term.Unit;
import dev.membership.spi.NodeRuntime;
import dev.membership.spi.NoticeChannel;
import dev.membership.spi.NoticeReceiver;

/**
 * Says this node's news to the others through the notice channels. That it let go of a
 * unit's term, the moment it has: after the drain, once the belief ended, while the
 * release is written (the successor may take the lease over from that term without
 * waiting for the release to land), and the release event tells this node's listeners.
 * And, as the keeper, which nodes a roster just written moves work for (they read it at
 * once, not at their next interval). A channel may block for the notice: it runs on the
 * thread that stops the node (which waits for the stop anyway), else on the reactions
 * lane, never on the loop or the watchdog.
 */
public final class OutgoingNotices {

	private static final Logger log = LoggerFactory.getLogger(OutgoingNotices.class);

	private final NodeRuntime runtime;

	private volatile List<NoticeChannel> channels = List.of();

	public OutgoingNotices(NodeRuntime runtime) {
		this.runtime = runtime;
	}

	/**
	 * Connects the node's channels to {@code notices} (where the others' news goes) and
	 * keeps them to say this node's: once, when the node starts (channels may be beans
	 * created after the node).
	 */
	public void connect(NoticeReceiver notices, List<? extends NoticeChannel> built,
			List<? extends NoticeChannel> late) {
		List<NoticeChannel> all = new ArrayList<>(built);
		all.addAll(late);
		all.forEach((channel) -> channel.connect(notices));
		this.channels = List.copyOf(all);
	}

	/**
	 * The terms of {@code released} (unit to epoch) are over here; {@code successors}:
	 * who should take each, when this node knows. One notice per successor, once the
	 * releases were written; the channels run on the reactions lane (here, when it is
	 * closed).
	 */
	public void said(Map<GroupElection, Long> released, Function<Unit, @Nullable String> successors) {
		said(released, successors, (unit) -> false);
	}

	/**
	 * As {@link #said(Map, Function)}; the units {@code kept} accepts are waiting for
	 * this node to come back (the restart grace): the others are not told of them, and
	 * nobody takes them over from this term.
	 */
	public void said(Map<GroupElection, Long> released, Function<Unit, @Nullable String> successors,
			Predicate<Unit> kept) {
		Map<Optional<String>, Map<String, Long>> bySuccessor = new LinkedHashMap<>();
		released.forEach((unit, epoch) -> {
			boolean waits = kept.test(unit.unit());
			String successor = waits ? null : successors.apply(unit.unit());
			unit.events().released(epoch, successor);
			if (!waits) {
				bySuccessor.computeIfAbsent(Optional.ofNullable(successor), (key) -> new LinkedHashMap<>())
					.put(unit.unit().leaseName(), epoch);
			}
		});
		Runnable tell = () -> bySuccessor.forEach((successor, leases) -> tell(leases, successor.orElse(null)));
		if (!this.runtime.reactions().execute(tell)) {
			tell.run();
		}
	}

	/**
	 * As the keeper: roster {@code version}, just written, moves work to or from
	 * {@code nodes}; told on the reactions lane (or nowhere when it is closed: they read
	 * it within an interval anyway).
	 */
	public void rosterChanged(long version, Set<String> nodes) {
		Set<String> to = Set.copyOf(nodes);
		this.runtime.reactions().execute(() -> {
			for (NoticeChannel channel : this.channels) {
				try {
					channel.rosterChanged(version, to);
				}
				catch (VirtualMachineError err) {
					// out of memory, a stack overflow: not the callback's own failure
					throw err;
				}
				catch (Throwable ex) {
					log.warn("Notice channel {} failed to tell {} of roster {}: {}", channel, to, version,
							ex.toString());
				}
			}
		});
	}

	private void tell(Map<String, Long> leases, @Nullable String successor) {
		for (NoticeChannel channel : this.channels) {
			try {
				channel.letGo(leases, successor);
			}
			catch (VirtualMachineError err) {
				// out of memory, a stack overflow: not the callback's own failure
				throw err;
			}
			catch (Throwable ex) {
				// advisory: the others see the releases in their next read of the leases
				log.warn("Notice channel {} failed to tell that {} were let go of: {}", channel, leases.keySet(),
						ex.toString());
			}
		}
	}

}
