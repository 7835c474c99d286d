package dev.membership.architecture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * No main source file of any module holds more than {@value #MOST} lines of code (blank
 * lines and comments aside): a file that grows past it does more than one job. A
 * {@code @ConfigurationProperties} class ({@code *Properties.java}) is exempt: its length
 * is its list of properties, which the reference documents where they stand.
 */
class SourceSizeTests {

	static final int MOST = 300;

	private static final Pattern NOT_CODE = Pattern.compile("^\\s*(\\*|/\\*|//).*|^\\s*$");

	@Test
	void noMainSourceFileHoldsMoreThanItsShare() {
		List<String> over = mainSources().filter((file) -> !file.getFileName().toString().endsWith("Properties.java"))
			.filter((file) -> codeLines(file) > MOST)
			.map((file) -> file + " (" + codeLines(file) + " lines of code)")
			.toList();
		assertThat(over).as("main source files over %d lines of code: split each by its jobs", MOST).isEmpty();
	}

	@Test
	void aFileOverTheLimitIsSeen() throws IOException {
		Path file = Files.createTempFile("Oversized", ".java");
		try {
			StringBuilder code = new StringBuilder("/** A breach. */\nclass Oversized {\n");
			for (int i = 0; i < MOST; i++) {
				code.append("\t// a comment\n\n\tint field").append(i).append(";\n");
			}
			Files.writeString(file, code.append("}\n"));
			assertThat(codeLines(file)).isEqualTo(MOST + 2);
		}
		finally {
			Files.delete(file);
		}
	}

	@Test
	void readsEveryModule() {
		assertThat(mainSources().map((file) -> file.toString())).anyMatch((f) -> f.contains("membership-starter"))
			.anyMatch((f) -> f.contains("membership-jdbc"))
			.anyMatch((f) -> f.contains("membership-bench"));
	}

	static long codeLines(Path file) {
		try (Stream<String> lines = Files.lines(file)) {
			return lines.filter((line) -> !NOT_CODE.matcher(line).matches()).count();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Every module's main Java sources, from the repository's root (this module's
	 * parent).
	 */
	static Stream<Path> mainSources() {
		try (Stream<Path> modules = Files.list(Path.of("..").toAbsolutePath().normalize())) {
			List<Path> roots = modules.map((module) -> module.resolve("src/main/java"))
				.filter(Files::isDirectory)
				.toList();
			return roots.stream().flatMap(SourceSizeTests::javaFiles);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static Stream<Path> javaFiles(Path root) {
		try (Stream<Path> files = Files.walk(root)) {
			return files.filter((file) -> file.toString().endsWith(".java")).toList().stream();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
