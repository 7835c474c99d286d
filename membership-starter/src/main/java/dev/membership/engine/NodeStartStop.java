package dev.membership.engine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.engine.election.GroupElection;
import dev.membership.engine.lease.IncomingNotices;
import dev.membership.engine.loop.Lifecycle.Phase;
import dev.membership.engine.loop.StopWait;
import dev.membership.spi.Holder;
import dev.membership.spi.NoticeReceiver;

/**
 * A node's start and stops, apart from what it answers: the start once (reactions, its
 * holder, notices, the loop's ticks), the graceful stop ({@code GracefulStop}), waited
 * for or not, and the halt that stops it like a crash.
 */
final class NodeStartStop {

	private static final Logger log = LoggerFactory.getLogger(NodeStartStop.class);

	private final NodeParts parts;

	NodeStartStop(NodeParts parts) {
		this.parts = parts;
	}

	boolean isRunning() {
		return this.parts.lifecycle.phase() == Phase.RUNNING;
	}

	void start() {
		NodeParts p = this.parts;
		String nodeId = p.settings.nodeId();
		synchronized (p.lifecycle) {
			if (p.lifecycle.phase() != Phase.NEW) {
				throw new IllegalStateException("A membership node starts once; create a new one to rejoin");
			}
			p.events.reactions(p.built.allReactions());
			String address = p.built.advertisedAddress.get();
			p.holder = new Holder(nodeId, p.incarnation, address);
			p.lifecycle.move(Phase.NEW, Phase.RUNNING);
			log.info("Membership node {} (incarnation {}) starting at {} for groups {}", nodeId, p.incarnation, address,
					p.units.groups());
			NoticeReceiver notices = new IncomingNotices(p.units.byLease(), p.loop, p.campaign, nodeId, p.rosterRead);
			p.letGo.connect(notices, p.built.noticeChannels, p.built.lateNoticeChannels.get());
			p.loop.startTicking(p.tick::job);
		}
	}

	void stop(Duration timeout) {
		long started = System.nanoTime();
		// this thread waits anyway: it carries the notices to the successors
		this.parts.leaving.stop(timeout, true);
		StopWait.await(this.parts.settings, this.parts.runtime, this.parts.stopped.copy(), timeout, started);
	}

	CompletableFuture<Void> stopAsync(Duration timeout) {
		this.parts.leaving.stop(timeout, false);
		// the caller's copy: completing it cannot fake a stop
		return this.parts.stopped.copy();
	}

	void halt() {
		if (this.parts.lifecycle.halt() == Phase.STOPPED) {
			return;
		}
		this.parts.stopped.complete(null);
		this.parts.units.all().forEach(GroupElection::halt);
		this.parts.runtime.halt();
	}

}
