package dev.membership.docs;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The configuration reference (docs/reference/configuration.md) cannot drift from the
 * properties: every property in the metadata the build generates, the starter's and each
 * store module's, has a row, with its default where the metadata has one, and every row
 * names a property that exists.
 */
class ConfigurationReferenceTests {

	private static final Path REFERENCE = Path.of("..", "docs", "reference", "configuration.md");

	private static final Pattern ROW = Pattern.compile("^\\| `(membership\\.[a-z.-]+)` \\| ([^|]*) \\|",
			Pattern.MULTILINE);

	@Test
	void everyPropertyHasARowWithItsDefaultAndEveryRowAProperty() throws IOException {
		Map<String, String> documented = documented();
		Map<String, String> declared = declared();
		assertThat(documented.keySet()).as("rows in %s", REFERENCE)
			.containsExactlyInAnyOrderElementsOf(declared.keySet());
		declared.forEach((name, defaultValue) -> {
			if (!defaultValue.isEmpty()) {
				assertThat(documented.get(name)).as("documented default of %s", name).contains(defaultValue);
			}
		});
	}

	/** Property name to its default column, from the reference's tables. */
	private static Map<String, String> documented() throws IOException {
		Map<String, String> rows = new LinkedHashMap<>();
		Matcher row = ROW.matcher(Files.readString(REFERENCE));
		while (row.find()) {
			rows.put(row.group(1), row.group(2));
		}
		return rows;
	}

	/**
	 * Property name to its default as the reference writes it (empty when the metadata
	 * has none).
	 */
	private static Map<String, String> declared() throws IOException {
		Map<String, String> properties = new LinkedHashMap<>();
		List<URL> metadata = Collections.list(ConfigurationReferenceTests.class.getClassLoader()
			.getResources("META-INF/spring-configuration-metadata.json"));
		assertThat(metadata).as("the generated configuration metadata").isNotEmpty();
		for (URL url : metadata) {
			try (InputStream in = url.openStream()) {
				for (JsonNode property : new JsonMapper().readTree(in).get("properties")) {
					String name = property.get("name").asString();
					if (name.startsWith("membership.")) {
						properties.put(name, written(property.get("defaultValue")));
					}
				}
			}
		}
		assertThat(properties).as("the starter's and both store modules' properties")
			.containsKeys("membership.lease-duration", "membership.mongo.leases-collection",
					"membership.jdbc.table-prefix");
		return properties;
	}

	private static String written(JsonNode defaultValue) {
		if (defaultValue == null || defaultValue.isNull()) {
			return "";
		}
		if (defaultValue.isArray()) {
			return (defaultValue.size() == 1) ? defaultValue.get(0).asString() : defaultValue.toString();
		}
		return defaultValue.asString();
	}

}
