package dev.membership.sample.e2e;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.awaitility.Awaitility;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The packaged sample app as real processes on free loopback ports, with short timings: a
 * standalone embedded database, and nodes that join it, each logging to its own file.
 * Closing stops every process it started, even when a check failed; so does the JVM's
 * exit.
 */
final class SampleProcesses implements AutoCloseable {

	static final Duration LEASE = Duration.ofSeconds(1);

	static final Duration INTERVAL = Duration.ofMillis(200);

	static final Path JAR = Path.of(System.getProperty("sample.jar", "target/membership-sample-app.jar"));

	static final Path LOGS = Path.of(System.getProperty("e2e.logs", "target/e2e-logs"));

	static final JsonMapper json = new JsonMapper();

	private static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();

	/** A process, its HTTP port (0 for the database) and the file it logs to. */
	record Proc(String name, Process process, int port, Path log) {
	}

	/**
	 * The operator's password the nodes start with (a node started with an empty one
	 * makes one up and logs it).
	 */
	static final String OPERATOR_PASSWORD = "e2e-operator";

	private final List<Proc> processes = new CopyOnWriteArrayList<>();

	SampleProcesses() throws IOException {
		assertThat(JAR).as("the packaged sample app (run through Maven verify)").exists();
		Files.createDirectories(LOGS);
		Runtime.getRuntime()
			.addShutdownHook(new Thread(() -> this.processes.forEach((p) -> p.process.destroyForcibly())));
		Awaitility.setDefaultPollInterval(Duration.ofMillis(10));
		Awaitility.setDefaultPollDelay(Duration.ZERO);
	}

	/**
	 * A standalone database on {@code port}, kept in {@code directory}; returns once it
	 * accepts connections.
	 */
	Proc startDatabase(int port, Path directory) throws IOException {
		Proc database = start("database", 0, Backend.CURRENT.databaseArgs(port, directory).toArray(String[]::new));
		await("the database port").atMost(Duration.ofSeconds(60)).until(() -> accepts(port));
		return database;
	}

	/**
	 * A node of the database on port {@code database}; {@code extra} properties replace
	 * the defaults of the same name (the same property twice would reach the application
	 * as "a,b").
	 */
	Proc startNode(String name, int database, String... extra) throws IOException {
		return startNode(name, database, Map.of(), extra);
	}

	/**
	 * As {@link #startNode(String, int, String...)}, with the process's wall clock
	 * {@code ahead} of this machine's (whole seconds; Debian's {@code libfaketime},
	 * preloaded into the JVM itself so that signals reach it; its monotonic clock
	 * untouched, as a skewed host's would be).
	 */
	Proc startNodeAhead(String name, int database, Duration ahead, String... extra) throws IOException {
		Path library = FAKETIME;
		assertThat(library).as("Debian's libfaketime").isNotNull();
		return startNode(name, database,
				Map.of("LD_PRELOAD", library.toString(), "FAKETIME", "+" + ahead.toSeconds() + "s",
						"FAKETIME_DONT_FAKE_MONOTONIC", "1",
						// without the fix for monotonic waits (not needed when the
						// monotonic
						// clock is left alone): a JVM under the fix spends several times
						// the CPU
						// on its calls of the clocks
						"FAKETIME_FORCE_MONOTONIC_FIX", "0"),
				extra);
	}

	/**
	 * Debian's {@code libfaketime} (package {@code faketime}), or null where it is not
	 * installed.
	 */
	static final Path FAKETIME = Stream
		.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1",
				"/usr/lib/aarch64-linux-gnu/faketime/libfaketimeMT.so.1")
		.map(Path::of)
		.filter(Files::isReadable)
		.findFirst()
		.orElse(null);

	private Proc startNode(String name, int database, Map<String, String> environment, String... extra)
			throws IOException {
		int port = freePort();
		// the database's port is taken: join
		List<String> args = new ArrayList<>(Backend.CURRENT.nodeArgs(database));
		args.addAll(List.of("--server.port=" + port, "--server.address=127.0.0.1", "--membership.node-id=" + name,
				"--membership.renewal-interval=" + INTERVAL.toMillis() + "ms",
				"--membership.lease-duration=" + LEASE.toMillis() + "ms", "--membership.liveness-window=600ms",
				"--sample.operator.password=" + OPERATOR_PASSWORD, "--sample.housekeeping.interval=100ms",
				"--sample.items.interval=200ms", "--sample.items.lifetime=500ms", "--sample.tenants.interval=1s"));
		for (String override : extra) {
			String key = override.substring(0, override.indexOf('=') + 1);
			args.removeIf((arg) -> arg.startsWith(key));
			args.add(override);
		}
		return start(name, port, environment, args.toArray(String[]::new));
	}

	private Proc start(String name, int port, String... args) throws IOException {
		return start(name, port, Map.of(), args);
	}

	private Proc start(String name, int port, Map<String, String> environment, String... args) throws IOException {
		List<String> command = new ArrayList<>(
				List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
						"-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-jar", JAR.toString()));
		command.addAll(List.of(args));
		Path log = LOGS.resolve(name + "-" + System.nanoTime() % 100000 + ".log");
		ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
		builder.environment().putAll(environment);
		Process process = builder.start();
		Proc proc = new Proc(name, process, port, log);
		this.processes.add(proc);
		return proc;
	}

	/** SIGTERM, then waits until the process has exited (its graceful stop over). */
	void stopGracefully(Proc proc) throws InterruptedException {
		proc.process.destroy();
		assertThat(proc.process.waitFor(30, TimeUnit.SECONDS)).as("%s exited after SIGTERM", proc.name).isTrue();
		this.processes.remove(proc);
	}

	/** Forgets a process that has exited. */
	void exited(Proc proc) {
		this.processes.remove(proc);
	}

	void awaitReady(List<Proc> nodes) {
		for (Proc node : nodes) {
			await(node.name + " ready").atMost(Duration.ofSeconds(90)).until(() -> {
				assertThat(node.process.isAlive()).as("%s is running (see %s)", node.name, LOGS).isTrue();
				try {
					return get(node, "/actuator/health/readiness").statusCode() == 200;
				}
				catch (IOException ex) {
					return false;
				}
			});
		}
	}

	static HttpResponse<String> get(Proc node, String path) throws IOException, InterruptedException {
		return http.send(
				HttpRequest.newBuilder(uri(node, path)).timeout(Duration.ofSeconds(2)).header("Accept", "*/*").build(),
				HttpResponse.BodyHandlers.ofString());
	}

	static HttpResponse<String> post(Proc node, String path) throws IOException, InterruptedException {
		return http.send(HttpRequest.newBuilder(uri(node, path))
			.POST(HttpRequest.BodyPublishers.noBody())
			.header("Accept", "*/*")
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	/**
	 * A JSON {@code POST} with HTTP Basic {@code user:password}, or anonymous when
	 * {@code credentials} is null.
	 */
	static HttpResponse<String> post(Proc node, String path, String json, String credentials)
			throws IOException, InterruptedException {
		HttpRequest.Builder request = HttpRequest.newBuilder(uri(node, path))
			.timeout(Duration.ofSeconds(5))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(json));
		if (credentials != null) {
			request.header("Authorization", "Basic " + java.util.Base64.getEncoder()
				.encodeToString(credentials.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
		}
		return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	/** The node's {@code /actuator/cluster}, or null when it does not answer. */
	static JsonNode cluster(Proc node) {
		try {
			HttpResponse<String> response = get(node, "/actuator/cluster");
			return (response.statusCode() == 200) ? json.readTree(response.body()) : null;
		}
		catch (Exception ex) {
			return null;
		}
	}

	private static URI uri(Proc node, String path) {
		return URI.create("http://127.0.0.1:" + node.port + path);
	}

	private static boolean accepts(int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

	/**
	 * SIGTERM to every process still running, SIGKILL to those that do not exit within 10
	 * s.
	 */
	@Override
	public void close() throws InterruptedException {
		this.processes.forEach((p) -> p.process.destroy());
		for (Proc p : this.processes) {
			if (!p.process.waitFor(10, TimeUnit.SECONDS)) {
				p.process.destroyForcibly();
			}
		}
		this.processes.clear();
		StoredData.close();
	}

}
