package dev.membership.jdbc.autoconfigure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The PostgreSQL server's processes (the postmaster and every process it forked), frozen with {@code SIGSTOP} and
 * resumed with {@code SIGCONT}, as a VM paused by its host or a server stuck in I/O would look to its clients.
 */
final class ServerProcesses {

	private final long postmaster;

	private List<Long> frozen = List.of();

	ServerProcesses(JdbcClient admin) {
		String dataDirectory = admin.sql("SELECT current_setting('data_directory')").query(String.class).single();
		try {
			// postmaster.pid: the postmaster's process id on its first line
			this.postmaster = Long.parseLong(Files.readAllLines(Path.of(dataDirectory, "postmaster.pid")).get(0).trim());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		if (ProcessHandle.of(this.postmaster).isEmpty()) {
			throw new IllegalStateException("No process " + this.postmaster + " (the postmaster of " + dataDirectory
					+ ") is visible here");
		}
	}

	void freeze() {
		List<Long> pids = new ArrayList<>();
		pids.add(this.postmaster);
		ProcessHandle.of(this.postmaster).orElseThrow().descendants().forEach((p) -> pids.add(p.pid()));
		signal("-STOP", pids);
		this.frozen = pids;
	}

	void resume() {
		if (!this.frozen.isEmpty()) {
			signal("-CONT", this.frozen);
			this.frozen = List.of();
		}
	}

	private static void signal(String signal, List<Long> pids) {
		List<String> command = new ArrayList<>(List.of("kill", signal));
		pids.forEach((pid) -> command.add(Long.toString(pid)));
		try {
			Process kill = new ProcessBuilder(command).inheritIO().start();
			if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
				throw new IllegalStateException("Could not " + command);
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not " + command, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
