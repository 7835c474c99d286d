package dev.membership.actuate;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.Principal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.http.client.ReactorResourceFactory;

import dev.membership.Membership;
import dev.membership.testsupport.EmbeddedMongo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code /actuator/cluster} over real HTTP, on Tomcat and on Netty: with the README's
 * exposure and nothing else, its reads answer and every write is refused;
 * {@code read-only} is the same, {@code none} removes it; opened ({@code unrestricted}),
 * an action is carried out and recorded with its principal (or {@code anonymous}) and the
 * caller's address. Startup says once how the writes stand.
 */
@ExtendWith(OutputCaptureExtension.class)
class ClusterEndpointAccessTests {

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
	void withTheReadmesExposureTheReadsAnswerAndEveryWriteIsRefused(CapturedOutput output) throws Exception {
		int port = start("servlet");
		assertReadsAnswerAndWritesAreRefused(port);
		assertThat(output.getOut()).contains("/actuator/cluster answers reads; its write operations (resign, release, "
				+ "drain, undrain, handover, move, pin, unpin, pause, resume) are closed. To steer the cluster over "
				+ "HTTP, put them behind authentication (Spring Security) and open them with "
				+ "management.endpoint.cluster.access=unrestricted");
	}

	@Test
	void readOnlyKeepsTheReadsAndRefusesEveryWriteOnNettyToo() throws Exception {
		assertReadsAnswerAndWritesAreRefused(start("servlet", "management.endpoint.cluster.access=read-only"));
		assertReadsAnswerAndWritesAreRefused(start("reactive", "management.endpoint.cluster.access=read-only"));
	}

	@Test
	void noneRemovesTheEndpoint() throws Exception {
		int port = start("servlet", "management.endpoint.cluster.access=none");
		assertThat(get(port, "/actuator/cluster").statusCode()).isEqualTo(404);
		assertThat(post(port, "/actuator/cluster/drain", "{}").statusCode()).isEqualTo(404);
	}

	@Test
	void openedAnActionIsCarriedOutAndRecordedAsAnonymousWithTheCallersAddress(CapturedOutput output) throws Exception {
		int port = start("servlet", "management.endpoint.cluster.access=unrestricted");
		assertThat(output.getOut()).contains("/actuator/cluster's write operations (resign, release, drain, undrain, "
				+ "handover, move, pin, unpin, pause, resume) are open to anyone who reaches this port");
		assertCarriedOutAndRecorded(port, "anonymous", output);
	}

	@Test
	void openedTheAuthenticatedPrincipalIsRecorded(CapturedOutput output) throws Exception {
		int port = start("servlet", "management.endpoint.cluster.access=unrestricted", "test.principal=alice");
		assertCarriedOutAndRecorded(port, "alice", output);
	}

	@Test
	void openedOnNettyTheCallersAddressIsRecordedToo(CapturedOutput output) throws Exception {
		int port = start("reactive", "management.endpoint.cluster.access=unrestricted");
		assertCarriedOutAndRecorded(port, "anonymous", output);
	}

	/**
	 * Behind a forwarding strategy (Spring Boot's default on Kubernetes) the caller's
	 * address comes from a header anyone may write: a value that is no address is not
	 * recorded, nor logged. Before: {@code Forwarded: for="<img src=x onerror=alert(1)>"}
	 * was recorded verbatim as {@code requestedFrom}.
	 */
	@Test
	void aForwardedValueThatIsNoAddressIsNeitherRecordedNorLogged(CapturedOutput output) throws Exception {
		int port = start("reactive", "management.endpoint.cluster.access=unrestricted",
				"server.forward-headers-strategy=native");
		HttpResponse<String> drained = this.http
			.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/cluster/drain"))
				.header("Content-Type", "application/json")
				.header("Forwarded", "for=\"<img src=x onerror=alert(1)>\"")
				.POST(HttpRequest.BodyPublishers.ofString(""))
				.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(drained.statusCode()).isEqualTo(200);
		JsonNode run = await().atMost(Duration.ofSeconds(5)).until(() -> {
			JsonNode runs = json.readTree(get(port, "/actuator/cluster/runs?job=operator%23drain").body()).get("runs");
			return (runs != null && runs.size() > 0) ? runs.get(0) : null;
		}, (found) -> found != null);
		assertThat(run.get("requestedBy").asString()).isEqualTo("anonymous");
		assertThat(run.get("requestedFrom") == null || run.get("requestedFrom").isNull()).as("requestedFrom of %s", run)
			.isTrue();
		assertThat(output.getOut()).doesNotContain("onerror");
	}

	private void assertReadsAnswerAndWritesAreRefused(int port) throws Exception {
		assertThat(get(port, "/actuator/cluster").statusCode()).isEqualTo(200);
		assertThat(get(port, "/actuator/cluster/runs").statusCode()).isEqualTo(200);
		for (String action : ClusterEndpoint.ACTIONS) {
			HttpResponse<String> refused = post(port, "/actuator/cluster/" + action,
					"{\"group\": \"default\", \"partition\": 0, \"to\": \"n2\", \"duration\": \"10m\"}");
			// not mapped at all (only the reads' GET answers at that path), not refused
			// by the node
			assertThat(refused.statusCode()).as("POST /actuator/cluster/%s", action).isEqualTo(405);
		}
		assertThat(post(port, "/actuator/cluster", "{}").statusCode()).isEqualTo(405);
		Membership membership = this.nodes.get(this.nodes.size() - 1).getBean(Membership.class);
		assertThat(membership.status().drained()).as("nothing was done").isFalse();
	}

	private void assertCarriedOutAndRecorded(int port, String principal, CapturedOutput output) throws Exception {
		HttpResponse<String> drained = post(port, "/actuator/cluster/drain", "");
		assertThat(drained.statusCode()).isEqualTo(200);
		assertThat(json.readTree(drained.body()).get("drained").asBoolean()).isTrue();
		HttpResponse<String> refused = post(port, "/actuator/cluster/handover", "{\"group\": \"default\"}");
		assertThat(refused.statusCode()).isEqualTo(400);
		assertThat(json.readTree(refused.body()).get("error").asString())
			.isEqualTo("The request names the node to hand it to: {\"group\": \"reports\", \"to\": \"n2\"}");
		assertThat(post(port, "/actuator/cluster/nonsense", "").statusCode()).isEqualTo(404);
		JsonNode run = await().atMost(Duration.ofSeconds(5)).until(() -> {
			// an answer without runs (the history not read yet) is asked again
			JsonNode runs = json.readTree(get(port, "/actuator/cluster/runs?job=operator%23drain").body()).get("runs");
			return (runs != null && runs.size() > 0) ? runs.get(0) : null;
		}, (found) -> found != null);
		assertThat(run.get("requestedBy").asString()).isEqualTo(principal);
		assertThat(run.get("requestedFrom").asString()).isEqualTo("127.0.0.1");
		assertThat(run.get("outcome").asString()).isEqualTo("success");
		assertThat(output.getOut()).contains("carries out operator#drain asked by " + principal + " from 127.0.0.1")
			.contains("Refused POST /actuator/cluster/handover asked by " + principal + " from 127.0.0.1: The request "
					+ "names the node to hand it to");
	}

	private int start(String web, String... properties) {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(Node.class)
			.properties("spring.main.web-application-type=" + web, "spring.main.banner-mode=off",
					"server.address=127.0.0.1", "server.port=0",
					"spring.mongodb.uri=" + mongo.uri() + "/access" + databases.incrementAndGet(),
					"management.endpoints.web.exposure.include=health,cluster", "membership.node-id=n1",
					"membership.advertised-address=127.0.0.1", "membership.renewal-interval=100ms",
					"membership.lease-duration=500ms", "membership.liveness-window=300ms",
					"logging.level.de.bwaldvogel=OFF")
			.properties(properties)
			.run();
		this.nodes.add(context);
		Membership membership = context.getBean(Membership.class);
		await().atMost(Duration.ofSeconds(5)).until(() -> membership.isLeader("default"));
		return ((WebServerApplicationContext) context).getWebServer().getPort();
	}

	private HttpResponse<String> get(int port, String path) throws IOException, InterruptedException {
		return this.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
				HttpResponse.BodyHandlers.ofString());
	}

	private HttpResponse<String> post(int port, String path, String body) throws IOException, InterruptedException {
		return this.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class Node {

		/**
		 * Reactor Netty's resources of its own, so that closing one node's context leaves
		 * the others' alone.
		 */
		@Bean
		@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
		ReactorResourceFactory reactorResourceFactory() {
			ReactorResourceFactory resources = new ReactorResourceFactory();
			resources.setUseGlobalResources(false);
			resources.setShutdownQuietPeriod(Duration.ZERO);
			return resources;
		}

		/**
		 * What an authenticating filter in front does: the request carries its principal.
		 */
		@Bean
		@ConditionalOnProperty("test.principal")
		Filter principal(org.springframework.core.env.Environment environment) {
			Principal alice = () -> environment.getProperty("test.principal");
			return (request, response, chain) -> chain
				.doFilter(new HttpServletRequestWrapper((HttpServletRequest) request) {
					@Override
					public Principal getUserPrincipal() {
						return alice;
					}
				}, response);
		}

	}

}
