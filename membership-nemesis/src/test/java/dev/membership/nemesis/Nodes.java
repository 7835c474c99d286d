package dev.membership.nemesis;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;

/**
 * The packaged sample app's nodes, each in its network namespace, under Debian's
 * {@code libfaketime} with a wall-clock offset the nemesis can change while it runs (its
 * monotonic clock left alone: the journal's stamps stay on the host's clock), or with
 * every clock running at a rate for the process's life. Each line a node prints goes to
 * its log; its journal's lines to the history, as events of the node's current process
 * ({@code n1#2}: its second).
 */
final class Nodes implements AutoCloseable {

	/**
	 * Debian's {@code libfaketime}, or a path that does not exist where it is not
	 * installed.
	 */
	static final Path FAKETIME = java.util.stream.Stream
		.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1",
				"/usr/lib/aarch64-linux-gnu/faketime/libfaketimeMT.so.1")
		.map(Path::of)
		.filter(Files::isReadable)
		.findFirst()
		.orElse(Path.of("/usr/lib/faketime/libfaketimeMT.so.1"));

	static final Duration LEASE = Duration.ofMillis(1000);

	static final Duration INTERVAL = Duration.ofMillis(200);

	static final int PARTITIONS = 4;

	private static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();

	private final Path jar;

	private final Path logs;

	private final Network network;

	/** What a node is given to reach the database through the relay. */
	private final List<String> databaseArgs;

	private final History history;

	private final Process[] processes;

	private final int[] incarnations;

	private final Thread[] readers;

	Nodes(Path jar, Path logs, Network network, List<String> databaseArgs, int count, History history) {
		this.jar = jar;
		this.logs = logs;
		this.network = network;
		this.databaseArgs = databaseArgs;
		this.history = history;
		this.processes = new Process[count + 1];
		this.incarnations = new int[count + 1];
		this.readers = new Thread[count + 1];
	}

	static String java() {
		return Path.of(System.getProperty("java.home"), "bin", "java").toString();
	}

	int count() {
		return this.processes.length - 1;
	}

	String process(int node) {
		return "n" + node + "#" + this.incarnations[node];
	}

	/**
	 * Starts node {@code node} (a new process of it), with its wall clock as it was set.
	 */
	void start(int node) throws IOException {
		start(node, 1);
	}

	/**
	 * Starts node {@code node} with every clock it has, monotonic included, running at
	 * {@code rate} (1: its wall clock as it was set, its monotonic clock the host's).
	 */
	void start(int node, double rate) throws IOException {
		this.incarnations[node]++;
		String process = process(node);
		this.history.rate(process, rate);
		Path clock = clockFile(node);
		if (this.incarnations[node] == 1) {
			// a run starts on the host's time, whatever a failed run left
			clock(node, 0);
		}
		List<String> command = new ArrayList<>(List.of("ip", "netns", "exec", this.network.namespace(node), java(),
				"-Xmx200m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-jar", this.jar.toString(),
				"--server.address=" + this.network.address(node), "--server.port=8080",
				"--membership.advertised-address=" + this.network.address(node), "--membership.node-id=n" + node,
				"--membership.renewal-interval=" + INTERVAL.toMillis() + "ms",
				"--membership.lease-duration=" + LEASE.toMillis() + "ms", "--membership.liveness-window=600ms",
				"--sample.operator.password=nemesis", "--sample.housekeeping.interval=100ms",
				"--sample.items.interval=200ms", "--sample.items.lifetime=500ms", "--sample.tenants.interval=300ms",
				"--sample.tenants.partitions=" + PARTITIONS, "--sample.journal.enabled=true"));
		command.addAll(this.databaseArgs);
		ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
		builder.environment().put("LD_PRELOAD", FAKETIME.toString());
		if (rate == 1) {
			builder.environment().put("FAKETIME_TIMESTAMP_FILE", clock.toString());
			// the offset is read again at most every second: a jump takes effect within
			// one
			builder.environment().put("FAKETIME_CACHE_DURATION", "1");
			builder.environment().put("FAKETIME_DONT_FAKE_MONOTONIC", "1");
			builder.environment().put("FAKETIME_FORCE_MONOTONIC_FIX", "0");
		}
		else {
			// a rate for the process's life, set once: changed while it runs, libfaketime
			// applies it from the process's start (a jump of every clock), and an offset
			// that makes up for the jump leaves a JVM's timed waits unwoken (tried)
			builder.environment().put("FAKETIME", "+0 x" + rate);
			builder.environment().put("FAKETIME_DONT_FAKE_MONOTONIC", "0");
			// left to libfaketime (on with glibc): off, a JVM's timed waits on a faked
			// monotonic clock never return
		}
		Process started = builder.start();
		this.processes[node] = started;
		Thread reader = new Thread(() -> read(process, started), "journal-" + process);
		reader.setDaemon(true);
		reader.start();
		this.readers[node] = reader;
	}

	private void read(String process, Process node) {
		Path log = this.logs.resolve(process.replace('#', '-') + ".log");
		try (BufferedReader in = new BufferedReader(
				new InputStreamReader(node.getInputStream(), StandardCharsets.UTF_8));
				PrintWriter out = new PrintWriter(Files.newBufferedWriter(log))) {
			for (String line = in.readLine(); line != null; line = in.readLine()) {
				this.history.read(process, line, System.nanoTime());
				out.println(line);
			}
		}
		catch (IOException ex) {
			// the process is gone
		}
	}

	private Path clockFile(int node) {
		return this.logs.resolve("n" + node + ".faketime");
	}

	/** Sets node {@code node}'s wall clock {@code seconds} away from the host's. */
	void clock(int node, long seconds) throws IOException {
		// whole or not at all: libfaketime may read it at any moment
		Path next = this.logs.resolve("n" + node + ".faketime.next");
		Files.writeString(next, ((seconds >= 0) ? "+" : "") + seconds + "s");
		Files.move(next, clockFile(node), java.nio.file.StandardCopyOption.ATOMIC_MOVE,
				java.nio.file.StandardCopyOption.REPLACE_EXISTING);
	}

	/**
	 * Waits until the nodes' fenced writes are accepted again, {@code count} of them: the
	 * database takes commits, and the nodes lead.
	 */
	void awaitWrites(int count) {
		long before = this.history.writes();
		await("writes accepted again").atMost(Duration.ofSeconds(60))
			.until(() -> this.history.writes() >= before + count);
	}

	void awaitReady(int node) {
		await("n" + node + " ready").atMost(Duration.ofSeconds(90)).until(() -> {
			if (!this.processes[node].isAlive()) {
				throw new IllegalStateException("n" + node + " exited: see " + this.logs);
			}
			try {
				HttpRequest request = HttpRequest
					.newBuilder(URI.create("http://" + this.network.address(node) + ":8080/actuator/health/readiness"))
					.timeout(Duration.ofSeconds(1))
					.build();
				return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
			}
			catch (IOException ex) {
				return false;
			}
		});
	}

	/**
	 * Waits, for at most {@code atMost}, until node {@code node}'s process believes it
	 * leads some unit; returns whether it does.
	 */
	boolean awaitBelieving(int node, Duration atMost) {
		String process = process(node);
		try {
			await(process + " believes").atMost(atMost).until(() -> this.history.believes(process));
			return true;
		}
		catch (org.awaitility.core.ConditionTimeoutException ex) {
			return false;
		}
	}

	/**
	 * Asks the coordinator, whichever node leads {@code default}, to move partition
	 * {@code partition} of {@code tenants} to node {@code node}, as the sample's operator
	 * ({@code POST /actuator/cluster/move}, which any node carries to it); returns
	 * whether one took it.
	 */
	boolean move(int partition, int node) throws InterruptedException {
		String body = "{\"group\": \"tenants\", \"partition\": " + partition + ", \"to\": \"n" + node + "\"}";
		String operator = java.util.Base64.getEncoder()
			.encodeToString("operator:nemesis".getBytes(StandardCharsets.UTF_8));
		for (int n = 1; n <= count(); n++) {
			try {
				HttpRequest request = HttpRequest
					.newBuilder(URI.create("http://" + this.network.address(n) + ":8080/actuator/cluster/move"))
					.timeout(Duration.ofSeconds(2))
					.header("Authorization", "Basic " + operator)
					.header("Content-Type", "application/json")
					.POST(HttpRequest.BodyPublishers.ofString(body))
					.build();
				if (http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
					return true;
				}
			}
			catch (IOException ex) {
				// not reachable: the next one
			}
		}
		return false;
	}

	/** {@code SIGSTOP} or {@code SIGCONT}. */
	void signal(int node, String signal) {
		Shell.run("kill", "-" + signal, Long.toString(this.processes[node].pid()));
	}

	/** Every node process there is: for a shutdown hook of the harness. */
	List<ProcessHandle> handles() {
		List<ProcessHandle> all = new ArrayList<>();
		for (Process process : this.processes) {
			if (process != null) {
				all.add(process.toHandle());
			}
		}
		return all;
	}

	/**
	 * Kills node {@code node}'s process ({@code SIGKILL}: it believes nothing from the
	 * signal on), or stops it ({@code SIGTERM}: its journal says when each belief ended),
	 * and returns once it exited and its journal was read to the end.
	 */
	void end(int node, boolean gracefully) throws InterruptedException {
		Process process = this.processes[node];
		long killed = System.nanoTime();
		// through its handle: Process.destroy() closes the process's output as well, and
		// the lines of its graceful stop (the journal's ends) would be lost
		if (gracefully) {
			process.toHandle().destroy();
		}
		else {
			process.toHandle().destroyForcibly();
		}
		if (!process.waitFor(40, TimeUnit.SECONDS)) {
			process.toHandle().destroyForcibly();
			process.waitFor(10, TimeUnit.SECONDS);
		}
		this.readers[node].join(TimeUnit.SECONDS.toMillis(10));
		this.history.add(gracefully ? System.nanoTime() : killed, History.Kind.EXITED, process(node), "", 0);
	}

	@Override
	public void close() throws InterruptedException {
		for (int node = 1; node <= count(); node++) {
			Process process = this.processes[node];
			if (process != null && process.isAlive()) {
				Shell.tryRun("kill", "-CONT", Long.toString(process.pid()));
				end(node, true);
			}
		}
	}

}
