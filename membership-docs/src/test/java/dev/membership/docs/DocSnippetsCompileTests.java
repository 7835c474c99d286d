package dev.membership.docs;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every ```java block of README.md, CONTRIBUTING.md and docs/ compiles against the
 * current code: a renamed method breaks the build, not the reader.
 */
class DocSnippetsCompileTests {

	static final Path ROOT = Path.of(System.getProperty("docs.root", ".."));

	@Test
	void everyJavaSnippetInTheDocsCompiles(@TempDir Path work) {
		List<Snippet> snippets = new ArrayList<>();
		for (Path markdown : Snippet.markdownFiles(ROOT)) {
			snippets.addAll(Snippet.in(markdown));
		}
		assertThat(snippets).as("snippets found").hasSizeGreaterThan(10);
		List<String> errors = SnippetCompiler.compile(snippets, work.resolve("src"), work.resolve("classes"));
		assertThat(errors).as("compile errors in the docs' Java snippets").isEmpty();
	}

	@Test
	void aSnippetThatCallsAMethodThatDoesNotExistFailsTheCheck(@TempDir Path work) {
		Snippet wrong = new Snippet(Path.of("guide.md"), 3, "membership.join(\"reports\");\n",
				"Membership membership;\n");
		List<String> errors = SnippetCompiler.compile(List.of(wrong), work.resolve("src"), work.resolve("classes"));
		assertThat(errors).singleElement().asString().startsWith("guide.md:3").contains("join");
	}

}
