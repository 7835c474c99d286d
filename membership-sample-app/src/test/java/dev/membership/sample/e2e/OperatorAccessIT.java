package dev.membership.sample.e2e;

import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import dev.membership.sample.e2e.SampleProcesses.Proc;

import static dev.membership.sample.e2e.SampleProcesses.LOGS;
import static dev.membership.sample.e2e.SampleProcesses.freePort;
import static dev.membership.sample.e2e.SampleProcesses.get;
import static dev.membership.sample.e2e.SampleProcesses.json;
import static dev.membership.sample.e2e.SampleProcesses.post;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Who may steer the cluster, on a real process of the sample as it starts out of the box
 * (no password given: it makes one up and prints it): anyone reads the endpoint and the
 * history; an anonymous or wrongly authenticated {@code POST} changes nothing; the
 * operator's {@code POST} drains the node, and the history and the node's log say who
 * asked and from where. Its health is UP on the embedded database.
 */
class OperatorAccessIT {

	private static final Pattern PRINTED = Pattern.compile("user 'operator', password '([^']+)'");

	private static SampleProcesses processes;

	@BeforeAll
	static void prepare() throws Exception {
		processes = new SampleProcesses();
	}

	@AfterAll
	static void stopEverything() throws InterruptedException {
		processes.close();
	}

	@Test
	void onlyTheOperatorWithThePrintedPasswordSteersTheClusterAndTheHistoryAndLogSayWhoAsked() throws Exception {
		int database = freePort();
		processes.startDatabase(database, Files.createTempDirectory(LOGS, "operator-db"));
		Proc node = processes.startNode("o1", database, "--sample.operator.password=");
		processes.awaitReady(List.of(node));
		String password = await("the printed password").atMost(Duration.ofSeconds(10)).until(() -> {
			Matcher printed = PRINTED.matcher(Files.readString(node.log()));
			return printed.find() ? printed.group(1) : null;
		}, (found) -> found != null);
		await("o1 leads").atMost(Duration.ofSeconds(30)).until(() -> leads(node));

		assertThat(get(node, "/actuator/cluster").statusCode()).isEqualTo(200);
		assertThat(get(node, "/actuator/cluster/runs").statusCode()).isEqualTo(200);
		JsonNode health = json.readTree(get(node, "/actuator/health").body());
		assertThat(health.get("status").asString()).as("the health it can check, on the embedded database: %s", health)
			.isEqualTo("UP");
		for (String action : List.of("resign", "release", "drain", "undrain", "handover", "move", "pin", "unpin",
				"pause", "resume")) {
			String body = "{\"group\": \"tenants\", \"partition\": 0, \"to\": \"o1\", \"duration\": \"10m\"}";
			assertThat(post(node, "/actuator/cluster/" + action, body, null).statusCode())
				.as("anonymous POST /actuator/cluster/%s", action)
				.isEqualTo(401);
			assertThat(post(node, "/actuator/cluster/" + action, body, "operator:" + password + "x").statusCode())
				.as("a wrong password")
				.isEqualTo(401);
		}
		assertThat(leads(node)).as("nothing was done").isTrue();

		var drained = post(node, "/actuator/cluster/drain", "", "operator:" + password);
		assertThat(drained.statusCode()).as(drained.body()).isEqualTo(200);
		assertThat(json.readTree(drained.body()).get("drained").asBoolean()).isTrue();
		JsonNode recorded = await("the drain in the history").atMost(Duration.ofSeconds(10))
			.until(() -> json.readTree(get(node, "/actuator/cluster/runs?job=operator%23drain").body()).get("runs"),
					(runs) -> runs.size() == 1)
			.get(0);
		assertThat(recorded.get("nodeId").asString()).isEqualTo("o1");
		assertThat(recorded.get("requestedBy").asString()).isEqualTo("operator");
		assertThat(recorded.get("requestedFrom").asString()).isEqualTo("127.0.0.1");
		assertThat(Files.readString(node.log()))
			.contains("Membership node o1 carries out operator#drain asked by operator from 127.0.0.1");
		await("o1 hands everything over").atMost(Duration.ofSeconds(10)).until(() -> !leads(node));
	}

	private static boolean leads(Proc node) {
		JsonNode cluster = SampleProcesses.cluster(node);
		return cluster != null && cluster.hasNonNull("leader")
				&& "o1".equals(cluster.get("leader").get("nodeId").asString());
	}

}
