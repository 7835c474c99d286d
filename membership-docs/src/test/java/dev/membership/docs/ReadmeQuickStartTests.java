package dev.membership.docs;

import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.io.DefaultResourceLoader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.awaitility.Awaitility.await;

/**
 * The README's quick start, as written: its Java blocks compiled into an application,
 * started with its application.properties against a test database (only the database's
 * address differs). It elects itself and runs the job, and what the README says a user
 * sees is what the log says. Without the {@code @EnableScheduling} it shows, startup
 * fails and names the method and the fix.
 */
@ExtendWith(OutputCaptureExtension.class)
class ReadmeQuickStartTests {

	private static final Path README = DocSnippetsCompileTests.ROOT.resolve("README.md");

	private MongoServer database;

	private String uri;

	@BeforeEach
	void startDatabase() {
		this.database = new MongoServer(new MemoryBackend());
		this.database.bind("127.0.0.1", 0);
		this.uri = "mongodb://127.0.0.1:" + this.database.getLocalAddress().getPort() + "/app";
	}

	@AfterEach
	void stopDatabase() {
		this.database.shutdownNow();
	}

	@Test
	void theQuickStartElectsItselfRunsTheJobOnTheLeaderAndServesTheClusterEndpoint(@TempDir Path work,
			CapturedOutput output) throws Exception {
		List<Snippet> app = Snippet.in(README).stream().filter((s) -> s.code().startsWith("package ")).toList();
		assertThat(app).as("the README's application classes").hasSize(2);
		try (ConfigurableApplicationContext context = run(app, work)) {
			await().atMost(Duration.ofSeconds(10))
				.until(() -> output.getOut().contains("Leading group default under epoch 1"));
			await().atMost(Duration.ofSeconds(15))
				.until(() -> output.getOut().contains("Purging expired sessions under epoch 1"));
			assertThat(output.getOut()).containsPattern(
					"Membership node \\S+ \\(incarnation \\S+\\) starting at \\S+ " + "for groups \\[default\\]");
			int port = ((WebServerApplicationContext) context).getWebServer().getPort();
			HttpResponse<String> cluster = HttpClient.newHttpClient()
				.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/cluster")).build(),
						HttpResponse.BodyHandlers.ofString());
			assertThat(cluster.statusCode()).as("/actuator/cluster exposed by the README's properties").isEqualTo(200);
			assertThat(cluster.body()).contains("\"leader\":{\"nodeId\"");
		}
	}

	@Test
	void withoutEnableSchedulingTheQuickStartFailsAtStartupNamingTheMethodAndTheFix(@TempDir Path work,
			CapturedOutput output) {
		List<Snippet> app = Snippet.in(README)
			.stream()
			.filter((s) -> s.code().startsWith("package "))
			.map((s) -> new Snippet(s.file(), s.line(), s.code().replace("@EnableScheduling", ""), s.context()))
			.toList();
		assertThatException().isThrownBy(() -> run(app, work).close());
		// what Spring Boot prints for a failure analysis, as the user sees it
		assertThat(output.getOut() + output.getErr()).contains("APPLICATION FAILED TO START")
			.containsPattern("Description:\\s+These @LeaderOnly methods are @Scheduled, but scheduling is not enabled")
			.contains("Housekeeping.purgeExpired")
			.containsPattern("Action:\\s+Add @EnableScheduling");
	}

	/**
	 * The README's application as a process of its own, with the README's properties and
	 * no security: anyone reads {@code /actuator/cluster} and its history; every
	 * operator's action is refused, and the node says so as it starts.
	 */
	@Test
	void withTheReadmesPropertiesAndNoSecurityEveryWriteIsRefusedOnARealProcess(@TempDir Path work) throws Exception {
		List<Snippet> app = Snippet.in(README).stream().filter((s) -> s.code().startsWith("package ")).toList();
		assertThat(SnippetCompiler.compile(app, work.resolve("src"), work.resolve("classes"))).isEmpty();
		int port;
		try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1,
				java.net.InetAddress.getLoopbackAddress())) {
			port = socket.getLocalPort();
		}
		List<String> command = new java.util.ArrayList<>(
				List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
						"-XX:TieredStopAtLevel=1", "-cp",
						work.resolve("classes") + java.io.File.pathSeparator + System.getProperty("java.class.path"),
						"com.example.app.Application"));
		Map<String, String> properties = new LinkedHashMap<>(readmeProperties());
		// the test database instead of localhost:27017
		properties.put("spring.mongodb.uri", this.uri);
		properties.put("server.port", Integer.toString(port));
		properties.put("server.address", "127.0.0.1");
		properties.put("membership.advertised-address", "127.0.0.1");
		// once each: twice would be "a,b"
		properties.forEach((key, value) -> command.add("--" + key + "=" + value));
		Path log = work.resolve("app.log");
		Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
		try {
			HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
			await().atMost(Duration.ofSeconds(60)).until(() -> {
				if (!process.isAlive()) {
					throw new AssertionError("The README's app exited: " + Files.readString(log));
				}
				try {
					return http.send(request(port, "/actuator/cluster").build(), HttpResponse.BodyHandlers.ofString())
						.statusCode() == 200 && Files.readString(log).contains("Leading group default under epoch 1");
				}
				catch (java.io.IOException ex) {
					return false;
				}
			});
			assertThat(send(http, request(port, "/actuator/cluster")).statusCode()).isEqualTo(200);
			assertThat(send(http, request(port, "/actuator/cluster/runs")).statusCode()).isEqualTo(200);
			for (String action : List.of("resign", "release", "drain", "undrain", "handover", "move", "pin", "unpin",
					"pause", "resume")) {
				HttpResponse<String> refused = send(http, request(port, "/actuator/cluster/" + action)
					.header("Content-Type", "application/json")
					.POST(HttpRequest.BodyPublishers.ofString(
							"{\"group\": \"default\", \"partition\": 0, " + "\"to\": \"n2\", \"duration\": \"10m\"}")));
				// not mapped: only the reads answer there
				assertThat(refused.statusCode()).as("anonymous POST /actuator/cluster/%s", action).isEqualTo(405);
			}
			assertThat(send(http, request(port, "/actuator/cluster").header("Content-Type", "application/json")
				.POST(HttpRequest.BodyPublishers.ofString("{}"))).statusCode()).isEqualTo(405);
			String logged = Files.readString(log);
			assertThat(logged).contains("Leading group default under epoch 1")
				.contains("/actuator/cluster answers reads; its write operations")
				.doesNotContain("carries out operator#");
		}
		finally {
			process.destroy();
			if (!process.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) {
				process.destroyForcibly();
			}
		}
	}

	private static HttpRequest.Builder request(int port, String path) {
		return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(5));
	}

	private static HttpResponse<String> send(HttpClient http, HttpRequest.Builder request) throws Exception {
		return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	/**
	 * Compiles {@code classes} and starts the one with a main method, with the README's
	 * properties.
	 */
	private ConfigurableApplicationContext run(List<Snippet> classes, Path work) throws Exception {
		Map<String, Object> properties = new LinkedHashMap<>(readmeProperties());
		// the test database instead of localhost:27017
		properties.put("spring.mongodb.uri", this.uri);
		properties.put("server.port", "0");
		properties.put("membership.advertised-address", "127.0.0.1");
		return start(classes, work, properties);
	}

	/**
	 * Compiles {@code classes} and starts {@code com.example.app.Application} with
	 * {@code properties}.
	 */
	static ConfigurableApplicationContext start(List<Snippet> classes, Path work, Map<String, Object> properties)
			throws Exception {
		List<String> errors = SnippetCompiler.compile(classes, work.resolve("src"), work.resolve("classes"));
		assertThat(errors).as("the README's classes compile").isEmpty();
		URLClassLoader loader = new URLClassLoader(new URL[] { work.resolve("classes").toUri().toURL() },
				ReadmeQuickStartTests.class.getClassLoader());
		Class<?> main = loader.loadClass("com.example.app.Application");
		SpringApplication application = new SpringApplication(new DefaultResourceLoader(loader), main);
		application.setDefaultProperties(properties);
		Thread.currentThread().setContextClassLoader(loader);
		try {
			return application.run();
		}
		finally {
			Thread.currentThread().setContextClassLoader(ReadmeQuickStartTests.class.getClassLoader());
		}
	}

	/** The README's application.properties block. */
	static Map<String, String> readmeProperties() throws Exception {
		Matcher block = Pattern.compile("```properties\\n(.*?)```", Pattern.DOTALL).matcher(Files.readString(README));
		assertThat(block.find()).as("an application.properties block in the README").isTrue();
		Map<String, String> properties = new LinkedHashMap<>();
		block.group(1)
			.lines()
			.filter((l) -> l.contains("="))
			.forEach((l) -> properties.put(l.substring(0, l.indexOf('=')).trim(),
					l.substring(l.indexOf('=') + 1).trim()));
		assertThat(properties).containsKeys("spring.mongodb.uri", "management.endpoints.web.exposure.include");
		return properties;
	}

}
