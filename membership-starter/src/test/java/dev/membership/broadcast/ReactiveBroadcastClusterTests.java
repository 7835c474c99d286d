package dev.membership.broadcast;

import org.junit.jupiter.api.Test;

import org.springframework.boot.reactor.netty.NettyWebServer;
import org.springframework.boot.web.server.reactive.context.ReactiveWebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every broadcast cluster test again, with the nodes as reactive applications: WebFlux on Reactor Netty. The same
 * wire format, limits and answers, leadership notices and fast hand-over as on a servlet container.
 */
class ReactiveBroadcastClusterTests extends BroadcastClusterTests {

	@Override
	protected String webApplicationType() {
		return "reactive";
	}

	@Test
	void theNodesRunOnNetty() {
		ConfigurableApplicationContext node = node("netty");
		assertThat(node).isInstanceOf(ReactiveWebServerApplicationContext.class);
		assertThat(((ReactiveWebServerApplicationContext) node).getWebServer()).isInstanceOf(NettyWebServer.class);
		assertThat(node.getBean(ClusterBroadcaster.class)).isNotNull();
	}

}
