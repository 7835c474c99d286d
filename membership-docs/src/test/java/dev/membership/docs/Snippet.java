package dev.membership.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A ```java block of a Markdown file, and the Java source it compiles as. A block that
 * declares a package is a whole compilation unit, compiled as written (the README's). Any
 * other gets the imports a guide's reader would add (see {@link #IMPORTS}) and, in a
 * package of its own, is compiled as what it is: top-level types; members of a class
 * (methods, fields); or statements of a method. What the snippet uses but does not show
 * (a {@code MongoTemplate} field, a repository) is declared in an HTML comment just above
 * the block, which Markdown does not render: <pre>
 * &lt;!-- java context
 * MongoTemplate mongoTemplate;
 * --&gt;
 * </pre> For types, the context is more top-level types; otherwise, more members of the
 * class around the snippet.
 */
record Snippet(Path file, int line, String code, String context) {

	private static final Pattern BLOCK = Pattern
		.compile("(?:<!-- java context\\n(?<context>.*?)-->\\n\\s*)?```java\\n(?<code>.*?)```", Pattern.DOTALL);

	private static final Pattern PACKAGE = Pattern.compile("(?m)^package\\s+([\\w.]+);");

	private static final Pattern TYPE = Pattern
		.compile("(?m)^(?:public\\s+|final\\s+|abstract\\s+)*(?:class|interface|record|enum|@interface)\\s+\\w+");

	/**
	 * A method at the top level of the snippet: a return type, a name and parameters,
	 * then a body.
	 */
	private static final Pattern METHOD = Pattern.compile(
			"(?m)^(?:public\\s+|protected\\s+|private\\s+|static\\s+|final\\s+)*[\\w<>\\[\\]?, .]+\\s+\\w+\\([^;{]*\\)\\s*(?:throws [\\w., ]+)?\\{");

	static final String IMPORTS = """
			import java.time.*;
			import java.util.*;
			import java.util.concurrent.*;
			import java.util.function.*;
			import javax.sql.*;
			import com.mongodb.client.*;
			import org.slf4j.*;
			import org.junit.jupiter.api.*;
			import reactor.core.publisher.*;
			import org.springframework.beans.factory.annotation.*;
			import org.springframework.boot.autoconfigure.*;
			import org.springframework.boot.test.context.*;
			import org.springframework.context.annotation.*;
			import org.springframework.context.event.EventListener;
			import org.springframework.data.mongodb.core.*;
			import org.springframework.data.mongodb.core.query.*;
			import org.springframework.scheduling.annotation.*;
			import org.springframework.stereotype.*;
			import dev.membership.*;
			import dev.membership.event.*;
			import dev.membership.broadcast.*;
			import dev.membership.engine.*;
			import dev.membership.leadership.*;
			import dev.membership.liveness.*;
			import dev.membership.jdbc.*;
			import dev.membership.mongo.*;
			import dev.membership.operations.*;
			import org.springframework.jdbc.core.simple.JdbcClient;
			import org.springframework.transaction.support.TransactionTemplate;
			import dev.membership.scheduling.*;
			import dev.membership.spi.*;
			import dev.membership.test.*;
			import net.javacrumbs.shedlock.core.LockAssert;
			import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
			import org.springframework.integration.leader.DefaultCandidate;
			import org.springframework.integration.leader.event.OnGrantedEvent;
			import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
			import org.springframework.integration.support.locks.LockRegistry;
			import org.springframework.core.annotation.Order;
			import org.springframework.http.HttpMethod;
			import org.springframework.security.config.Customizer;
			import org.springframework.security.config.annotation.web.builders.HttpSecurity;
			import org.springframework.security.web.SecurityFilterChain;
			import static org.springframework.data.mongodb.core.query.Criteria.where;
			import static org.springframework.data.mongodb.core.query.Query.query;
			import static org.assertj.core.api.Assertions.*;
			""";

	/** Every ```java block of {@code markdown}. */
	static List<Snippet> in(Path markdown) {
		String text = read(markdown);
		List<Snippet> snippets = new ArrayList<>();
		Matcher block = BLOCK.matcher(text);
		while (block.find()) {
			int line = (int) text.substring(0, block.start("code")).lines().count();
			String context = (block.group("context") != null) ? block.group("context") : "";
			snippets.add(new Snippet(markdown, line, block.group("code"), context));
		}
		return snippets;
	}

	/** README.md and every Markdown file under docs/. */
	static List<Path> markdownFiles(Path root) {
		List<Path> files = new ArrayList<>(List.of(root.resolve("README.md"), root.resolve("CONTRIBUTING.md")));
		try (Stream<Path> docs = Files.walk(root.resolve("docs"))) {
			docs.filter((p) -> p.toString().endsWith(".md")).sorted().forEach(files::add);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return files;
	}

	/** The package this snippet compiles in: its own, or one made up from where it is. */
	String packageName(int index) {
		Matcher declared = PACKAGE.matcher(this.code);
		return declared.find() ? declared.group(1) : "docs.snippet" + index;
	}

	/**
	 * The name of the file it compiles as, under its package's folder: its public type's,
	 * if it has one.
	 */
	String fileName(int index) {
		Matcher type = Pattern
			.compile("(?m)^public\\s+(?:final\\s+|abstract\\s+)*(?:class|interface|record|enum)\\s+(\\w+)")
			.matcher(this.code);
		return (type.find() ? type.group(1) : "Snippet" + index) + ".java";
	}

	/** The Java source of this snippet, snippet number {@code index} of the run. */
	String source(int index) {
		if (PACKAGE.matcher(this.code).find()) {
			return this.code;
		}
		String header = "package " + packageName(index) + ";\n" + IMPORTS + "\n";
		if (TYPE.matcher(this.code).find()) {
			return header + this.code + "\n" + this.context;
		}
		if (METHOD.matcher(this.code).find()) {
			return header + "class Snippet {\n" + this.context + "\n" + this.code + "\n}\n";
		}
		return header + "class Snippet {\n" + this.context + "\nvoid snippet() throws Exception {\n" + this.code
				+ "\n}\n}\n";
	}

	String where() {
		return this.file.getFileName() + ":" + this.line;
	}

	private static String read(Path file) {
		try {
			return Files.readString(file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
