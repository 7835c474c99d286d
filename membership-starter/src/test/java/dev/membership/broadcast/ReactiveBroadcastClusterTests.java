package dev.membership.broadcast;

import org.junit.jupiter.api.Test;

import org.springframework.boot.reactor.netty.NettyWebServer;
import org.springframework.boot.web.server.reactive.context.ReactiveWebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The broadcast cluster tests again (all but one about the sender alone), with the nodes as reactive applications:
 * WebFlux on Reactor Netty. The same wire format, limits and answers, leadership notices and fast hand-over as on a
 * servlet container.
 */
class ReactiveBroadcastClusterTests extends BroadcastClusterTests {

	@Override
	protected String webApplicationType() {
		return "reactive";
	}

	/** Not again here: it is about the sender (timeouts, retries), which is the same whatever the web stack. */
	@Override
	void aDownOrSilentMemberFailsWithoutHoldingUpTheOthers() {
	}

	@Test
	void theNodesRunOnNetty() {
		ConfigurableApplicationContext node = node("netty");
		assertThat(node).isInstanceOf(ReactiveWebServerApplicationContext.class);
		assertThat(((ReactiveWebServerApplicationContext) node).getWebServer()).isInstanceOf(NettyWebServer.class);
		assertThat(node.getBean(ClusterBroadcaster.class)).isNotNull();
	}

}
