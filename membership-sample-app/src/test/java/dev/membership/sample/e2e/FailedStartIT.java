package dev.membership.sample.e2e;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static dev.membership.sample.e2e.SampleProcesses.JAR;
import static dev.membership.sample.e2e.SampleProcesses.LOGS;
import static dev.membership.sample.e2e.SampleProcesses.freePort;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packaged sample app, started with a typo in a property while it runs its own
 * embedded database: it says what is wrong and exits with a non-zero status, instead of
 * hanging on the database's threads (an orchestrator would never restart or report it).
 */
class FailedStartIT {

	@Test
	void aStartThatFailsExitsWithANonZeroStatus() throws Exception {
		assertThat(JAR).as("the packaged sample app (run through Maven verify)").exists();
		Files.createDirectories(LOGS);
		Path log = LOGS.resolve("failed-start.log");
		Path directory = Files.createTempDirectory(LOGS, "failed-start-db");
		Process process = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
				"-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-jar", JAR.toString(),
				"--server.port=" + freePort(), "--server.address=127.0.0.1",
				"--sample.embedded-mongo.port=" + freePort(), "--sample.embedded-mongo.directory=" + directory,
				"--membership.lease=10s"))
			.redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.start();
		try {
			assertThat(process.waitFor(90, TimeUnit.SECONDS)).as("the process exited (see %s)", log).isTrue();
			assertThat(process.exitValue()).isNotZero();
			assertThat(Files.readString(log)).contains("Started the embedded test database")
				.contains("membership.lease: is not a membership property, so it would be ignored; did you mean "
						+ "membership.lease-duration?");
		}
		finally {
			process.destroyForcibly();
		}
	}

}
