package dev.membership.docs;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * Compiles snippets with the JDK's compiler against this module's test classpath (the
 * starter, the test kit and what a Spring Boot application with MongoDB has), each in the
 * package it declares or one of its own.
 */
final class SnippetCompiler {

	private SnippetCompiler() {
	}

	/**
	 * Writes {@code snippets} as sources under {@code sources}, compiles them into
	 * {@code classes}, and returns every error, each with the Markdown file and line of
	 * the snippet it is in; empty when all compiled.
	 */
	static List<String> compile(List<Snippet> snippets, Path sources, Path classes) {
		Map<Path, Snippet> bySource = new java.util.LinkedHashMap<>();
		try {
			for (int i = 0; i < snippets.size(); i++) {
				Snippet snippet = snippets.get(i);
				Path dir = sources.resolve(snippet.packageName(i).replace('.', File.separatorChar));
				Files.createDirectories(dir);
				Path file = dir.resolve(snippet.fileName(i));
				Files.writeString(file, snippet.source(i));
				bySource.put(file.toAbsolutePath(), snippet);
			}
			Files.createDirectories(classes);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
		DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
		try (StandardJavaFileManager files = compiler.getStandardFileManager(diagnostics, Locale.ROOT,
				StandardCharsets.UTF_8)) {
			List<String> options = List.of("-classpath", classpath(), "-d", classes.toString(), "-proc:none",
					"-parameters", "--release", "17", "-Xlint:none", "-nowarn");
			compiler
				.getTask(null, files, diagnostics, options, null,
						files.getJavaFileObjectsFromPaths(new ArrayList<>(bySource.keySet())))
				.call();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		List<String> errors = new ArrayList<>();
		for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
			if (d.getKind() != Diagnostic.Kind.ERROR) {
				continue;
			}
			Snippet snippet = (d.getSource() != null) ? bySource.get(Path.of(d.getSource().toUri()).toAbsolutePath())
					: null;
			String where = (snippet != null)
					? snippet.where() + " (as " + d.getSource().getName() + ":" + d.getLineNumber() + ")"
					: String.valueOf(d.getSource());
			errors.add(where + ": " + d.getMessage(Locale.ROOT));
		}
		return errors;
	}

	/** The test classpath: Surefire's, or this JVM's when run otherwise. */
	static String classpath() {
		String surefire = System.getProperty("surefire.test.class.path");
		return (surefire != null && !surefire.isBlank()) ? surefire : System.getProperty("java.class.path");
	}

}
