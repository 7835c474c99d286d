package dev.membership.aot;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The packaged application, processed ahead of time by the build
 * ({@code spring-boot:process-aot}), started as a real process with
 * {@code spring.aot.enabled=true}: it runs on the generated bean definitions, and still
 * joins the cluster, leads, runs its {@code @LeaderOnly} job with its epoch, and answers
 * {@code /actuator/cluster}. (A native image needs GraalVM, which these machines do not
 * have; the runtime hints are checked by MembershipRuntimeHintsTests.)
 */
class AotSmokeIT {

	private static final Path JAR = Path.of(System.getProperty("app.jar", "target/membership-aot-smoke-test.jar"));

	private static final Path LOG = Path.of(System.getProperty("app.log", "target/aot-smoke.log"));

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();

	private final JsonMapper json = new JsonMapper();

	@Test
	void theAotProcessedApplicationLeadsRunsItsLeaderOnlyJobAndAnswersTheClusterEndpoint() throws Exception {
		assertThat(JAR).as("the packaged application (run through Maven verify)").exists();
		MongoServer database = new MongoServer(new MemoryBackend());
		int databasePort = freePort();
		database.bind("127.0.0.1", databasePort);
		int port = freePort();
		Process app = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
				"-Dspring.aot.enabled=true", "-Xmx256m", "-XX:TieredStopAtLevel=1", "-jar", JAR.toString(),
				"--server.port=" + port, "--server.address=127.0.0.1", "--membership.node-id=aot-1",
				"--spring.mongodb.uri=mongodb://127.0.0.1:" + databasePort + "/aot"))
			.redirectErrorStream(true)
			.redirectOutput(LOG.toFile())
			.start();
		try {
			await("the application's runs as leader (see " + LOG + ")").atMost(Duration.ofSeconds(90))
				.pollInterval(Duration.ofMillis(200))
				.ignoreExceptionsInstanceOf(IOException.class) // not listening yet
				.untilAsserted(() -> {
					assertThat(app.isAlive()).as("running (see %s)", LOG).isTrue();
					JsonNode runs = get(port, "/runs");
					assertThat(runs.path("runs").asLong()).isPositive();
					assertThat(runs.path("epoch").asLong()).isPositive();
				});
			JsonNode cluster = get(port, "/actuator/cluster");
			assertThat(cluster.path("self").path("nodeId").asString()).isEqualTo("aot-1");
			assertThat(cluster.path("groups").path("default").path("leader").asString()).isEqualTo("aot-1");
			assertThat(cluster.path("members").get(0).path("live").asBoolean()).isTrue();
			assertThat(Files.readString(LOG)).contains("Starting AOT-processed AotSmokeApplication");
		}
		finally {
			app.destroy();
			if (!app.waitFor(20, TimeUnit.SECONDS)) {
				app.destroyForcibly();
			}
			database.shutdownNow();
		}
		assertThat(Files.readString(LOG)).contains("no longer leads group 'default'").contains("SHUTDOWN");
	}

	private JsonNode get(int port, String path) throws IOException, InterruptedException {
		HttpResponse<String> response = this.http
			.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
				.timeout(Duration.ofSeconds(2))
				.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as(path).isEqualTo(200);
		return this.json.readTree(response.body());
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

}
