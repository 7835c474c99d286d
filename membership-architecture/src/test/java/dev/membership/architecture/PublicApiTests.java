package dev.membership.architecture;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The public API of the published modules is as recorded in {@code public-api.txt}
 * (beside this module's pom), so that every change of it shows in review as a change of
 * that file; and the record is written again only for a change that CHANGELOG.md's
 * unreleased section names, type by type: {@code ./mvnw -pl membership-architecture test
 * -Dtest=PublicApiTests -Dmembership.api.record=true} (after {@code ./mvnw install
 * -DskipTests} of the changed modules).
 */
class PublicApiTests {

	static final Path RECORD = Path.of("public-api.txt");

	static final Path CHANGELOG = Path.of("../CHANGELOG.md");

	@Test
	void theApiIsAsRecorded() throws IOException {
		Map<String, List<String>> now = PublicApi.of(HouseRulesTests.PUBLISHED);
		Map<String, List<String>> recorded = PublicApi.read(Files.readString(RECORD));
		List<String> unsaid = unsaid(recorded, now, unreleased(Files.readString(CHANGELOG)));
		if (Boolean.getBoolean("membership.api.record")) {
			// the first record has nothing to differ from
			assertThat(recorded.isEmpty() ? List.of() : unsaid).as("""
					Not recorded: CHANGELOG.md's unreleased section names none of these changed types. Say what \
					changed there (breaking changes first, with the migration), naming each type in backticks""")
				.isEmpty();
			Files.writeString(RECORD, PublicApi.write(now));
			return;
		}
		assertThat(changes(recorded, now)).as("""
				The public API differs from its record (membership-architecture/public-api.txt). Say what changed in \
				CHANGELOG.md (naming each type in backticks), then record it: ./mvnw -pl membership-architecture test \
				-Dtest=PublicApiTests -Dmembership.api.record=true""").isEmpty();
	}

	@Test
	void aChangeTheChangelogDoesNotNameIsFound() {
		Map<String, List<String>> recorded = Map.of("dev.membership.Membership",
				List.of("public interface dev.membership.Membership", "  public abstract boolean isLeader()"));
		Map<String, List<String>> now = Map.of("dev.membership.Membership",
				List.of("public interface dev.membership.Membership", "  public abstract boolean isLeader()",
						"  public abstract boolean isLeader(java.lang.String)"),
				"dev.membership.Added", List.of("public final class dev.membership.Added"));
		assertThat(unsaid(recorded, now, "- `Added`: new.")).hasSize(1)
			.first(org.assertj.core.api.InstanceOfAssertFactories.STRING)
			.contains("dev.membership.Membership")
			.contains("+   public abstract boolean isLeader(java.lang.String)");
		assertThat(unsaid(recorded, now, "- `Membership.isLeader(String)` and `Added`: new.")).isEmpty();
	}

	@Test
	void theRecordReadsBackAsWritten() {
		Map<String, List<String>> now = PublicApi.of(HouseRulesTests.PUBLISHED);
		assertThat(PublicApi.read(PublicApi.write(now))).isEqualTo(now);
		assertThat(now).containsKeys("dev.membership.Membership", "dev.membership.engine.MembershipNode",
				"dev.membership.spi.MembershipStore", "dev.membership.mongo.EpochFence",
				"dev.membership.jdbc.JdbcEpochFence", "dev.membership.test.SimulatedCluster");
		assertThat(now).doesNotContainKey("dev.membership.engine.lease.Campaign");
	}

	/** Each changed type the changelog does not name, with its changed lines. */
	static List<String> unsaid(Map<String, List<String>> recorded, Map<String, List<String>> now, String said) {
		return changes(recorded, now).stream().filter((change) -> !named(said, change.split("\n")[0])).toList();
	}

	/** Each changed type, with its changed lines. */
	static List<String> changes(Map<String, List<String>> recorded, Map<String, List<String>> now) {
		List<String> changes = new ArrayList<>();
		for (String type : new TreeSet<>(union(recorded.keySet(), now.keySet()))) {
			List<String> before = recorded.getOrDefault(type, List.of());
			List<String> after = now.getOrDefault(type, List.of());
			if (Objects.equals(before, after)) {
				continue;
			}
			StringBuilder change = new StringBuilder(type);
			before.stream()
				.filter((line) -> !after.contains(line))
				.forEach((line) -> change.append("\n  - ").append(line));
			after.stream()
				.filter((line) -> !before.contains(line))
				.forEach((line) -> change.append("\n  + ").append(line));
			changes.add(change.toString());
		}
		return changes;
	}

	/**
	 * Whether the text names the type, its outermost type, or a member of either, in
	 * backticks.
	 */
	private static boolean named(String said, String type) {
		String simple = type.substring(type.lastIndexOf('.') + 1);
		String outermost = simple.contains("$") ? simple.substring(0, simple.indexOf('$')) : simple;
		// a nested type by its outermost type or as Outer.Nested: a bare nested name may
		// be another type's (an old name, another package's)
		return List.of(outermost, simple.replace('$', '.'))
			.stream()
			.anyMatch((name) -> said.matches("(?s).*`([\\w.]+\\.)?" + java.util.regex.Pattern.quote(name) + "\\b.*"));
	}

	/** The changelog's first section: the version not yet released. */
	static String unreleased(String changelog) {
		int start = changelog.indexOf("\n## ");
		int end = changelog.indexOf("\n## ", start + 1);
		return changelog.substring(start, (end < 0) ? changelog.length() : end);
	}

	private static TreeSet<String> union(java.util.Set<String> a, java.util.Set<String> b) {
		TreeSet<String> all = new TreeSet<>(a);
		all.addAll(b);
		return all;
	}

}
