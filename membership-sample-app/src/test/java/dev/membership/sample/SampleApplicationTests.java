package dev.membership.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;

import dev.membership.Membership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "server.address=127.0.0.1", "sample.operator.password=" + SampleApplicationTests.PASSWORD,
				"membership.renewal-interval=100ms", "membership.lease-duration=500ms",
				"membership.liveness-window=300ms", "sample.housekeeping.interval=100ms", "sample.items.interval=50ms",
				"sample.items.lifetime=100ms", "sample.tenants.interval=100ms" })
@Import(TestDatabase.InContext.class)
class SampleApplicationTests {

	static final String PASSWORD = "test-operator-secret";

	@Autowired
	private Membership membership;

	@LocalServerPort
	private int port;

	private final HttpClient http = HttpClient.newHttpClient();

	private final JsonMapper json = new JsonMapper();

	private HttpResponse<String> get(String path) throws Exception {
		HttpResponse<String> response = send(path);
		assertThat(response.statusCode()).as("%s: %s", path, response.body()).isEqualTo(200);
		return response;
	}

	private HttpResponse<String> send(String path) throws Exception {
		// as curl and browsers ask
		return this.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
			.header("Accept", "*/*")
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	@Test
	void aSingleNodeLeadsAdvertisesLoopbackAndServesEverySurface() throws Exception {
		await().atMost(Duration.ofSeconds(5)).until(() -> this.membership.isLeader("default"));
		assertThat(this.membership.advertisedAddress()).isEqualTo("127.0.0.1:" + this.port);
		JsonNode cluster = this.json.readTree(get("/actuator/cluster").body());
		assertThat(cluster.get("leader").get("nodeId").asString()).isEqualTo(this.membership.nodeId());
		assertThat(cluster.get("members")).hasSize(1);
		await().atMost(Duration.ofSeconds(5)).until(() -> finishedRun() != null);
		JsonNode run = finishedRun();
		assertThat(run.get("nodeId").asString()).isEqualTo(this.membership.nodeId());
		assertThat(run.get("epoch").asLong()).isPositive();
		assertThat(run.get("accepted").asBoolean()).as("its fenced checkpoint write was accepted").isTrue();
		assertThat(run.get("endedAt").isNull()).isFalse();
		assertThat(get("/actuator/prometheus").body()).contains("membership_leader{", "membership_members_live");
		assertThat(get("/actuator/health").body()).contains("\"membership\"");
		assertThat(get("/").body()).contains("/actuator/cluster");
		assertThat(get("/cache/events").body()).isEqualTo("[]");
	}

	@Test
	void aSingleNodeOwnsEveryTenantPartitionAndRollsEachUpUnderItsOwnEpoch() throws Exception {
		await().atMost(Duration.ofSeconds(10)).until(() -> this.membership.partitions("tenants").owned().size() == 8);
		JsonNode owners = this.json.readTree(get("/actuator/cluster").body()).get("partitions").get("tenants");
		assertThat(owners.get("count").asInt()).isEqualTo(8);
		assertThat(owners.get("owners").get("5").get("nodeId").asString()).isEqualTo(this.membership.nodeId());
		// each partition's latest run under its owner's epoch now: a partition another
		// test released and this node took again (a new epoch) shows its run of the old
		// one until the next run ends
		await().atMost(Duration.ofSeconds(10))
			.until(() -> finishedTenantRuns().size() == 8
					&& finishedTenantRuns().values().stream().allMatch(this::underTheOwnersEpoch));
		for (JsonNode run : finishedTenantRuns().values()) {
			assertThat(run.propertyNames()).containsExactlyInAnyOrder("nodeId", "partition", "epoch", "startedAt",
					"endedAt", "accepted");
			assertThat(run.get("accepted").asBoolean()).as("fenced checkpoint of %s", run).isTrue();
		}
	}

	private boolean underTheOwnersEpoch(JsonNode run) {
		var owner = this.membership.partitions("tenants").owners().get(run.get("partition").asInt());
		return owner != null && run.get("epoch").asLong() == owner.epoch();
	}

	@Test
	void anOperatorReleasesOnePartitionOverHttpAndResigningAPartitionedGroupIsABadRequestThatSaysWhy()
			throws Exception {
		await().atMost(Duration.ofSeconds(10)).until(() -> this.membership.partitions("tenants").owned().size() == 8);
		long epoch = this.membership.partitions("tenants").owners().get(3).epoch();
		HttpResponse<String> released = post("/actuator/cluster/release", "{\"group\": \"tenants\", \"partition\": 3}");
		assertThat(released.statusCode()).as(released.body()).isEqualTo(200);
		assertThat(this.json.readTree(released.body()))
			.isEqualTo(this.json.readTree("{\"group\": \"tenants\", \"partition\": 3, \"resigned\": true}"));
		// a lone node takes it back after its hold-off, under a new epoch
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.membership.partitions("tenants").owned().contains(3)
					&& this.membership.partitions("tenants").owners().get(3).epoch() > epoch);
		HttpResponse<String> whole = post("/actuator/cluster/resign", "{\"group\": \"tenants\"}");
		assertThat(whole.statusCode()).isEqualTo(400);
		assertThat(whole.body()).contains("is partitioned").contains("POST /actuator/cluster/release");
	}

	@Test
	void theRunHistoryAnswersWhichNodeRanAJobUnderWhichEpochAndHowItEnded() throws Exception {
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.json
				.readTree(get("/actuator/cluster/runs?job=housekeeping%23purgeExpired&limit=5").body())
				.get("runs")
				.size() > 0);
		JsonNode runs = this.json.readTree(get("/actuator/cluster/runs?job=housekeeping%23purgeExpired&limit=5").body())
			.get("runs");
		assertThat(runs.size()).isBetween(1, 5);
		JsonNode run = runs.get(0);
		assertThat(run.propertyNames()).containsExactlyInAnyOrder("job", "group", "partition", "nodeId", "epoch",
				"startedAt", "endedAt", "outcome", "error", "requestedBy", "requestedFrom", "fireAt");
		assertThat(run.get("job").asString()).isEqualTo("housekeeping#purgeExpired");
		assertThat(run.get("group").asString()).isEqualTo("default");
		assertThat(run.get("partition").isNull()).isTrue();
		assertThat(run.get("nodeId").asString()).isEqualTo(this.membership.nodeId());
		assertThat(run.get("epoch").asLong()).isPositive();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.json.readTree(get("/actuator/cluster/runs?group=tenants&partition=3&limit=1").body())
				.get("runs")
				.size() == 1);
		HttpResponse<String> tooMany = send("/actuator/cluster/runs?limit=5000");
		assertThat(tooMany.statusCode()).isEqualTo(400);
		assertThat(tooMany.body()).contains("limit 1 to 1000");
		assertThat(send("/actuator/cluster/nothing").statusCode()).isEqualTo(404);
	}

	@Test
	void anOperatorDrainsAndUndrainsTheNodeAndAHandOverToANodeThatIsNotLiveIsABadRequest() throws Exception {
		await().atMost(Duration.ofSeconds(10)).until(() -> this.membership.isLeader("default"));
		HttpResponse<String> drained = post("/actuator/cluster/drain", "");
		assertThat(drained.statusCode()).as(drained.body()).isEqualTo(200);
		JsonNode answer = this.json.readTree(drained.body());
		assertThat(answer.get("nodeId").asString()).isEqualTo(this.membership.nodeId());
		assertThat(answer.get("drained").asBoolean()).isTrue();
		assertThat(answer.get("handingOver").toString()).contains("\"default\"", "\"tenants#0\"");
		await().atMost(Duration.ofSeconds(5))
			.until(() -> !this.membership.isLeader("default")
					&& this.membership.partitions("tenants").owned().isEmpty());
		assertThat(get("/actuator/health").body()).contains("\"drained\":true");

		// the action is in the history, with the node that carried it out and who asked
		// from where (this node's: the embedded database's file keeps the history of
		// earlier runs of this test)
		String drains = "/actuator/cluster/runs?job=operator%23drain&node=" + this.membership.nodeId();
		JsonNode recorded = await().atMost(Duration.ofSeconds(10))
			.until(() -> this.json.readTree(get(drains).body()).get("runs"), (runs) -> runs.size() == 1)
			.get(0);
		assertThat(recorded.get("requestedBy").asString()).isEqualTo("operator");
		assertThat(recorded.get("requestedFrom").asString()).isEqualTo("127.0.0.1");

		HttpResponse<String> undrained = post("/actuator/cluster/undrain", "");
		assertThat(this.json.readTree(undrained.body()).get("drained").asBoolean()).isFalse();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.membership.isLeader("default")
					&& this.membership.partitions("tenants").owned().size() == 8);

		HttpResponse<String> refused = post("/actuator/cluster/handover",
				"{\"group\": \"default\", \"to\": \"nobody\"}");
		assertThat(refused.statusCode()).isEqualTo(400);
		assertThat(refused.body()).contains("'nobody' is not a live member");
		assertThat(post("/actuator/cluster/reboot", "").statusCode()).isEqualTo(404);

		// this lone node coordinates: it takes moves and pauses
		HttpResponse<String> paused = post("/actuator/cluster/pause", "{\"duration\": \"10m\"}");
		assertThat(paused.statusCode()).as(paused.body()).isEqualTo(200);
		assertThat(this.json.readTree(paused.body()).get("pausedUntil").asString()).isNotBlank();
		assertThat(this.json.readTree(post("/actuator/cluster/resume", "").body()).get("pausedUntil").isNull())
			.isTrue();
		assertThat(post("/actuator/cluster/pause", "{\"duration\": \"2h\"}").body()).contains("at most 60 minutes");
		HttpResponse<String> pinned = post("/actuator/cluster/pin",
				"{\"group\": \"tenants\", \"partition\": 3, \"to\": \"" + this.membership.nodeId() + "\"}");
		assertThat(this.json.readTree(pinned.body()).get("pinned").asBoolean()).as(pinned.body()).isTrue();
		await().atMost(Duration.ofSeconds(5))
			.until(() -> post("/actuator/cluster/unpin", "{\"group\": \"tenants\", \"partition\": 3}")
				.statusCode() == 200);
		assertThat(post("/actuator/cluster/move", "{\"group\": \"tenants\", \"partition\": 99, \"to\": \"x\"}")
			.statusCode()).isEqualTo(400);
	}

	@Test
	void onlyTheOperatorSteersTheClusterWhileAnyoneReadsAndTheHealthIsUpOnTheEmbeddedDatabase() throws Exception {
		await().atMost(Duration.ofSeconds(10)).until(() -> this.membership.isLeader("default"));
		for (String action : java.util.List.of("resign", "drain", "pause", "move")) {
			HttpResponse<String> anonymous = send("POST", "/actuator/cluster/" + action, "{}", null);
			assertThat(anonymous.statusCode()).as("anonymous POST /actuator/cluster/%s", action).isEqualTo(401);
			HttpResponse<String> wrong = send("POST", "/actuator/cluster/" + action, "{}", "operator:guess");
			assertThat(wrong.statusCode()).as("a wrong password").isEqualTo(401);
		}
		assertThat(this.membership.isLeader("default")).as("nothing was done").isTrue();
		assertThat(this.membership.status().drained()).isFalse();
		assertThat(get("/actuator/cluster").statusCode()).isEqualTo(200);
		assertThat(get("/actuator/cluster/runs").statusCode()).isEqualTo(200);
		// Boot's MongoDB check cannot ask the embedded stand-in: the health the sample
		// can check, UP with its cluster
		HttpResponse<String> health = get("/actuator/health");
		JsonNode status = this.json.readTree(health.body());
		assertThat(status.get("status").asString()).as(health.body()).isEqualTo("UP");
		assertThat(status.get("components").propertyNames()).noneMatch((name) -> name.startsWith("mongo"));
		assertThat(status.get("components").get("membership").get("status").asString()).isEqualTo("UP");
	}

	/** As the operator, with HTTP Basic. */
	private HttpResponse<String> post(String path, String body) throws Exception {
		return send("POST", path, body, "operator:" + PASSWORD);
	}

	private HttpResponse<String> send(String method, String path, String body, String credentials) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
			.header("Content-Type", "application/json")
			.method(method, HttpRequest.BodyPublishers.ofString(body));
		if (credentials != null) {
			request.header("Authorization", "Basic " + java.util.Base64.getEncoder()
				.encodeToString(credentials.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
		}
		return this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	/** The latest finished run of each partition. */
	private java.util.Map<Integer, JsonNode> finishedTenantRuns() throws Exception {
		java.util.Map<Integer, JsonNode> latest = new java.util.TreeMap<>();
		for (JsonNode run : this.json.readTree(get("/tenants/runs").body())) {
			if (run.hasNonNull("endedAt")) {
				latest.putIfAbsent(run.get("partition").asInt(), run);
			}
		}
		return latest;
	}

	private JsonNode finishedRun() throws Exception {
		for (JsonNode run : this.json.readTree(get("/housekeeping/runs").body())) {
			if (run.hasNonNull("endedAt")) {
				return run;
			}
		}
		return null;
	}

}
