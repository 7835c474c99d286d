package dev.membership.engine.lease;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongFunction;

import org.jspecify.annotations.Nullable;

import dev.membership.engine.election.GroupElection;
import dev.membership.engine.loop.LoopJob;
import dev.membership.engine.loop.NodeLoop;
import dev.membership.leadership.LeaderInfo;
import dev.membership.spi.NoticeReceiver;

/**
 * Other nodes' leadership news, from the node's notice channels, on any thread: handed to
 * the loop, which alone changes what this node knows and decides whether to compete.
 */
public final class IncomingNotices implements NoticeReceiver {

	private final Map<String, GroupElection> groups;

	private final NodeLoop loop;

	private final Campaign campaign;

	private final String nodeId;

	/**
	 * The job that reads a roster version this node was told of, and hands over or takes
	 * on what it moved.
	 */
	private final LongFunction<LoopJob> rosterRead;

	public IncomingNotices(Map<String, GroupElection> groups, NodeLoop loop, Campaign campaign, String nodeId,
			LongFunction<LoopJob> rosterRead) {
		this.groups = groups;
		this.loop = loop;
		this.campaign = campaign;
		this.nodeId = nodeId;
		this.rosterRead = rosterRead;
	}

	@Override
	public void rosterChanged(long version) {
		this.loop.submit(this.rosterRead.apply(version));
	}

	@Override
	public CompletionStage<Void> leaseReleased(String group, long epoch, @Nullable String holder,
			@Nullable String successor) {
		GroupElection election = this.groups.get(group);
		CompletableFuture<Void> over = new CompletableFuture<>();
		if (election == null || !this.loop
			.submit(this.campaign.released(election, epoch, holder, successor).onEnd(() -> over.complete(null)))) {
			over.complete(null);
		}
		return over;
	}

	@Override
	public void leaderElected(LeaderInfo leader) {
		GroupElection election = this.groups.get(leader.group());
		if (election != null && !this.nodeId.equals(leader.nodeId())) {
			this.loop.submit(this.campaign.elected(election, leader));
		}
	}

}
