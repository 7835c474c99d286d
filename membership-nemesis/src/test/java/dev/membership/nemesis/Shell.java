package dev.membership.nemesis;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Commands of this machine (ip, nft, kill), each bounded in time; a failure throws. */
final class Shell {

	private Shell() {
	}

	/** Runs {@code command}; its output, or an exception with it when it failed. */
	static String run(String... command) {
		return run(true, command);
	}

	/** Runs {@code command}; its output, whether it failed or not. */
	static String tryRun(String... command) {
		return run(false, command);
	}

	/** {@code command} inside the network namespace {@code namespace}. */
	static String in(String namespace, String... command) {
		List<String> all = new ArrayList<>(List.of("ip", "netns", "exec", namespace));
		all.addAll(List.of(command));
		return run(all.toArray(String[]::new));
	}

	private static String run(boolean check, String... command) {
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			if (!process.waitFor(20, TimeUnit.SECONDS)) {
				process.destroyForcibly();
				throw new IllegalStateException("timed out: " + String.join(" ", command));
			}
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			if (check && process.exitValue() != 0) {
				throw new IllegalStateException(
						String.join(" ", command) + " failed (" + process.exitValue() + "): " + output.strip());
			}
			return output;
		}
		catch (IOException ex) {
			throw new IllegalStateException("could not run " + String.join(" ", command), ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("interrupted: " + String.join(" ", command), ex);
		}
	}

	/**
	 * Whether this machine lets the harness make network namespaces (root, {@code ip},
	 * {@code nft}).
	 */
	static String missing() {
		if (!"0".equals(tryRun("id", "-u").strip())) {
			return "not root";
		}
		for (String tool : List.of("ip", "nft")) {
			if (tryRun("sh", "-c", "command -v " + tool).isBlank()) {
				return tool + " is not installed (Debian's iproute2, nftables)";
			}
		}
		return null;
	}

}
