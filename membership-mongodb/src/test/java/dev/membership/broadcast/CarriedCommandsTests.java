package dev.membership.broadcast;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.http.client.ReactorResourceFactory;

import dev.membership.Membership;
import dev.membership.leadership.LeaderInfo;
import dev.membership.operations.ClusterOperations;
import dev.membership.operations.Pause;
import dev.membership.operations.PauseResult;
import dev.membership.operations.Pin;
import dev.membership.operations.PlacementResult;
import dev.membership.operations.Requester;
import dev.membership.operations.Resume;
import dev.membership.testsupport.EmbeddedMongo;
import dev.membership.testsupport.FastPolling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An operator's command sent to any node (as a load balancer or a Kubernetes Service
 * picks one) is carried to the node that acts on it, over the nodes' signed channel, and
 * answered with that node's answer; it is recorded there with who asked and from where.
 * Before: a {@code pin} sent to a node that does not coordinate answered 400 "does not
 * coordinate the placement; n2 does: send it there".
 */
@ExtendWith({ FastPolling.class, OutputCaptureExtension.class })
class CarriedCommandsTests {

	@RegisterExtension
	static final EmbeddedMongo mongo = new EmbeddedMongo();

	private static final AtomicInteger databases = new AtomicInteger();

	private static final JsonMapper json = new JsonMapper();

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

	private final List<ConfigurableApplicationContext> nodes = new ArrayList<>();

	@AfterEach
	void close() {
		this.nodes.forEach(ConfigurableApplicationContext::close);
	}

	@Test
	void aPlacementCommandSentToAnyNodeIsCarriedOutByTheCoordinator(CapturedOutput output) throws Exception {
		List<ConfigurableApplicationContext> cluster = cluster(3);
		ConfigurableApplicationContext coordinator = leaderOf("default", cluster);
		ConfigurableApplicationContext other = cluster.stream().filter((c) -> c != coordinator).findFirst().get();
		String to = membership(other).nodeId();
		HttpResponse<String> pinned = post(other, "/actuator/cluster/pin",
				"{\"group\": \"tenants\", \"partition\": 3, \"to\": \"" + to + "\"}");
		assertThat(pinned.statusCode()).as(pinned.body()).isEqualTo(200);
		assertThat(json.readTree(pinned.body()).get("pinned").asBoolean()).isTrue();
		await().atMost(Duration.ofSeconds(10)).until(() -> membership(other).partitions("tenants").owned().contains(3));
		// recorded where it was carried out, with the caller's name and address
		JsonNode run = await().atMost(Duration.ofSeconds(5)).until(() -> {
			JsonNode runs = json
				.readTree(get(coordinator, "/actuator/cluster/runs?job=operator%23pin(" + to + ")").body())
				.get("runs");
			return (runs != null && runs.size() > 0) ? runs.get(0) : null;
		}, (found) -> found != null);
		assertThat(run.get("requestedBy").asString()).isEqualTo("anonymous");
		assertThat(run.get("requestedFrom").asString()).isEqualTo("127.0.0.1");
		String via = membership(other).nodeId();
		String by = membership(coordinator).nodeId();
		assertThat(output.getOut())
			.contains("Node " + by + " carries out pin for anonymous from 127.0.0.1, carried here by " + via)
			.contains("Node " + via + " carried pin for anonymous from 127.0.0.1 to " + by + ", which carried it out");

		// the bean carries it too, and a refusal is the acting node's own
		ClusterOperations operations = other.getBean(ClusterOperations.class);
		PlacementResult back = operations.pin(new Pin("tenants", 3, by, Requester.of("admin-console")));
		assertThat(back.to()).isEqualTo(by);
		// a pause and its end, through the bean at another node
		PauseResult paused = operations.pause(new Pause(Duration.ofMinutes(1), Requester.of("admin-console")));
		assertThat(paused.pausedUntil()).isNotNull();
		assertThat(operations.resume(new Resume(Requester.of("admin-console"))).pausedUntil()).isNull();
		HttpResponse<String> refused = post(other, "/actuator/cluster/pin",
				"{\"group\": \"tenants\", \"partition\": 3, \"to\": \"nobody\"}");
		assertThat(refused.statusCode()).isEqualTo(400);
		assertThat(json.readTree(refused.body()).get("error").asString()).contains("nobody")
			.doesNotContain("send it there");
	}

	@ParameterizedTest
	@ValueSource(strings = { "servlet", "reactive" })
	void aResignSentToAFollowerMakesTheLeaderResign(String web) throws Exception {
		List<ConfigurableApplicationContext> cluster = cluster(2, "spring.main.web-application-type=" + web);
		ConfigurableApplicationContext leader = leaderOf("default", cluster);
		ConfigurableApplicationContext follower = cluster.stream().filter((c) -> c != leader).findFirst().get();
		long epoch = membership(leader).leader("default").map(LeaderInfo::epoch).orElseThrow();
		HttpResponse<String> resigned = post(follower, "/actuator/cluster/resign", "{\"group\": \"default\"}");
		assertThat(resigned.statusCode()).as(resigned.body()).isEqualTo(200);
		assertThat(json.readTree(resigned.body()).get("resigned").asBoolean()).isTrue();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> membership(follower).leader("default").map(LeaderInfo::epoch).orElse(0L) > epoch);
	}

	/**
	 * A command carries the term it was sent for: a resign that reaches the leader after
	 * its term changed (a retry, a late delivery) does nothing, so a resign asked of one
	 * leader never makes the next one resign.
	 */
	@Test
	void aCommandForATermThatIsNoLongerHeldDoesNothing() {
		List<ConfigurableApplicationContext> cluster = cluster(2);
		ConfigurableApplicationContext leader = leaderOf("default", cluster);
		long epoch = membership(leader).leader("default").map(LeaderInfo::epoch).orElseThrow();
		OperatorRelay relay = leader.getBean(OperatorRelay.class);
		JsonNode stale = json.readTree(relay.answer(resign(leader, epoch + 1)));
		assertThat(stale.get("refused").asString())
			.contains("no longer holds group 'default' under epoch " + (epoch + 1));
		assertThat(membership(leader).isLeader("default")).isTrue();
		JsonNode done = json.readTree(relay.answer(resign(leader, epoch)));
		assertThat(done.get("result").get("resigned").asBoolean()).isTrue();
	}

	private static ClusterBroadcastEvent resign(ConfigurableApplicationContext to, long epoch) {
		JsonNode payload = json.readTree("{\"nonce\": \"n\", \"type\": \"Resign\", \"epoch\": " + epoch
				+ ", \"request\": {\"group\": \"default\", \"requestedBy\": {\"name\": \"test\"}}}");
		return new ClusterBroadcastEvent(membership(to).nodeId(), OperatorRelay.TOPIC, "elsewhere",
				java.util.UUID.randomUUID(), java.time.Instant.now(), payload, json);
	}

	@Test
	void withoutTheBroadcastACommandForAnotherNodeIsRefusedNamingIt() throws Exception {
		List<ConfigurableApplicationContext> cluster = cluster(2, "membership.broadcast.enabled=false");
		ConfigurableApplicationContext coordinator = leaderOf("default", cluster);
		ConfigurableApplicationContext other = cluster.stream().filter((c) -> c != coordinator).findFirst().get();
		HttpResponse<String> refused = post(other, "/actuator/cluster/pause", "{\"duration\": \"1m\"}");
		assertThat(refused.statusCode()).isEqualTo(400);
		assertThat(json.readTree(refused.body()).get("error").asString()).contains("does not coordinate the placement")
			.contains(membership(coordinator).nodeId());
	}

	private List<ConfigurableApplicationContext> cluster(int size, String... properties) {
		String database = "carried" + databases.incrementAndGet();
		List<ConfigurableApplicationContext> started = new ArrayList<>();
		for (int i = 1; i <= size; i++) {
			started.add(node("n" + i, database, properties));
		}
		await().atMost(Duration.ofSeconds(20))
			.until(() -> started.stream()
				.allMatch((c) -> membership(c).liveMembers().size() == size
						&& membership(c).leader("default").isPresent())
					&& started.stream().filter((c) -> membership(c).isLeader("default")).count() == 1);
		return started;
	}

	private ConfigurableApplicationContext node(String nodeId, String database, String... properties) {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(Node.class)
			.properties("spring.main.web-application-type=servlet", "spring.main.banner-mode=off",
					"server.address=127.0.0.1", "server.port=0", "spring.mongodb.uri=" + mongo.uri() + "/" + database,
					"management.endpoints.web.exposure.include=cluster",
					"management.endpoint.cluster.access=unrestricted", "membership.node-id=" + nodeId,
					"membership.advertised-address=127.0.0.1", "membership.renewal-interval=200ms",
					"membership.lease-duration=1500ms", "membership.liveness-window=1s",
					"membership.partitions.tenants=4", "logging.level.de.bwaldvogel=OFF")
			.properties(properties)
			.run();
		this.nodes.add(context);
		return context;
	}

	private static ConfigurableApplicationContext leaderOf(String group, List<ConfigurableApplicationContext> cluster) {
		return cluster.stream().filter((c) -> membership(c).isLeader(group)).findFirst().orElseThrow();
	}

	private static Membership membership(ConfigurableApplicationContext context) {
		return context.getBean(Membership.class);
	}

	private static int port(ConfigurableApplicationContext context) {
		return ((WebServerApplicationContext) context).getWebServer().getPort();
	}

	private HttpResponse<String> get(ConfigurableApplicationContext node, String path)
			throws IOException, InterruptedException {
		return this.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port(node) + path)).build(),
				HttpResponse.BodyHandlers.ofString());
	}

	private HttpResponse<String> post(ConfigurableApplicationContext node, String path, String body)
			throws IOException, InterruptedException {
		return this.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port(node) + path))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class Node {

		/** Reactor Netty's resources of its own: closing one node leaves the others'. */
		@Bean
		@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
		ReactorResourceFactory reactorResourceFactory() {
			ReactorResourceFactory resources = new ReactorResourceFactory();
			resources.setUseGlobalResources(false);
			resources.setShutdownQuietPeriod(Duration.ZERO);
			return resources;
		}

	}

}
