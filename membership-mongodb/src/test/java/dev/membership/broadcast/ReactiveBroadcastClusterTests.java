package dev.membership.broadcast;

import org.junit.jupiter.api.Test;

import org.springframework.boot.reactor.netty.NettyWebServer;
import org.springframework.boot.web.server.reactive.context.ReactiveWebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The broadcast cluster tests again (all but those about the sender, the event lanes or
 * the placement alone), with the nodes as reactive applications: WebFlux on Reactor
 * Netty. The same wire format, limits and answers, leadership notices and fast hand-over
 * as on a servlet container.
 */
class ReactiveBroadcastClusterTests extends BroadcastClusterTests {

	@Override
	protected String webApplicationType() {
		return "reactive";
	}

	/**
	 * Not again here: it is about the sender (timeouts, retries), which is the same
	 * whatever the web stack.
	 */
	@Override
	void aDownOrSilentMemberFailsWithoutHoldingUpTheOthers() {
	}

	/**
	 * Not again here: partitions' notices reach the same endpoint as the leader's, whose
	 * hand-over runs here ({@code aGracefullyStoppedLeaderIsReplacedWithinMilliseconds});
	 * what differs is the keeper's placement.
	 */
	@Override
	void aJoinIsBalancedAtTheKeepersNextReadWithoutWaitingForTheGiversNextRead() {
	}

	/** Not again here, for the same reason: the notice's way in is the leader's. */
	@Override
	void aPartitionHandedOverByAGracefulStopIsTakenAtOnceNotAtTheSuccessorsNextTick() {
	}

	/**
	 * Not again here: it is about the node's event lanes, which are the same whatever the
	 * web stack.
	 */
	@Override
	void aThrowingApplicationListenerSilencesNoneOfTheStartersReactions() {
	}

	@Test
	void theNodesRunOnNetty() {
		ConfigurableApplicationContext node = node("netty");
		assertThat(node).isInstanceOf(ReactiveWebServerApplicationContext.class);
		assertThat(((ReactiveWebServerApplicationContext) node).getWebServer()).isInstanceOf(NettyWebServer.class);
		assertThat(node.getBean(ClusterBroadcaster.class)).isNotNull();
	}

}
