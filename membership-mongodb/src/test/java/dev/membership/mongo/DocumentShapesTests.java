package dev.membership.mongo;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.membership.liveness.Member;
import dev.membership.spi.GroupAssignment;
import dev.membership.spi.Holder;
import dev.membership.spi.MembershipStore;
import dev.membership.spi.NodeRecord;
import dev.membership.spi.PlacementChange;
import dev.membership.spi.RosterChange;
import dev.membership.spi.RunOutcome;
import dev.membership.spi.RunRecord;
import dev.membership.testsupport.EmbeddedMongo;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The production guide's table of documents (docs/guides/mongodb-in-production.md) is
 * what the store writes: every field of a lease, the roster (and its members, changes and
 * placement) and a node document, written through the store with every feature in use,
 * has its name in the table, and every name in the table is written.
 */
class DocumentShapesTests {

	private static final Path GUIDE = Path.of("..", "docs", "guides", "mongodb-in-production.md");

	@RegisterExtension
	static final EmbeddedMongo mongo = new EmbeddedMongo();

	@Test
	void theGuidesTableNamesEveryFieldTheStoreWritesAndNoOther() throws Exception {
		Map<String, Set<String>> written = new LinkedHashMap<>();
		try (MongoClient client = mongo.newClient()) {
			MongoDatabase database = client.getDatabase("shapes");
			MembershipStore store = MongoStores.create(database, "shapes");
			Instant now = store.serverTime().orElseThrow();
			Holder holder = new Holder("node-a", "a-1", "127.0.0.1:1001");
			store.heartbeat(new NodeRecord("node-a", "a-1", "127.0.0.1:1001", now, null, List.of("default", "tenants"),
					Map.of("tenants", 4)));
			long epoch = store.tryAcquire("default", holder, now, now.plusSeconds(15)).orElseThrow().epoch();
			store.renew("default", holder, epoch, now.plusSeconds(20),
					List.of(new dev.membership.spi.FireMark("jobs#nightly", now, true),
							// what only some marks have: owed, and a schedule's identity
							new dev.membership.spi.FireMark("jobs#hourly", now, false, true, "cron 0 0 * * * *")));
			store.tryAcquire("tenants#1", holder, now, now.plusSeconds(15));
			store.release("tenants#1", holder, 1, null);
			Member member = new Member("node-a", "a-1", "127.0.0.1:1001", now, now, List.of("default", "tenants"), true,
					Map.of("tenants", 4));
			Member gone = new Member("node-b", "b-1", "127.0.0.1:1002", now, now, List.of("default"), false, Map.of());
			PlacementChange moved = new PlacementChange("tenants", 4, List.of(1), List.of("node-a"), List.of("node-a"),
					now.plusSeconds(600));
			store.writeRoster(List.of(member),
					List.of(new RosterChange(0, List.of(member), List.of(gone), List.of(moved))),
					Map.of("tenants",
							new GroupAssignment(4, java.util.Arrays.asList("node-a", "node-a", null, "node-a"),
									java.util.Arrays.asList(null, "node-a", null, null), now.plusSeconds(600))),
					"node-a", epoch, 1);
			Document roster = database.getCollection("shapes_leases").find(Filters.eq("_id", "_roster")).first();
			written.put("lease",
					fields(database.getCollection("shapes_leases")
						.find(Filters.in("_id", "default", "tenants#1"))
						.into(new java.util.ArrayList<>())));
			written.put("roster", fields(List.of(roster)));
			written.put("roster members", fields(roster.getList("members", Document.class)));
			written.put("roster changes", fields(roster.getList("changes", Document.class)));
			written.put("roster placement changes",
					fields(roster.getList("changes", Document.class).get(0).getList("placed", Document.class)));
			written.put("roster assignments", fields(roster.getList("assignments", Document.class)));
			written.put("partitions",
					fields(roster.getList("members", Document.class).get(0).getList("partitions", Document.class)));
			written.put("node",
					fields(database.getCollection("shapes_nodes").find().into(new java.util.ArrayList<>())));
			MongoRunHistory history = new MongoRunHistory(database, "shapes_runs", java.time.Duration.ofDays(7), 100,
					java.time.Duration.ofSeconds(2));
			RunRecord run = new RunRecord("a1-1", "a1", 1, "jobs#nightly", "default", null, "node-a", epoch, now, null,
					null, null, null, null, true);
			history.save(List.of(run));
			history.save(List.of(new RunRecord("a1-1", "a1", 1, "jobs#nightly", "default", null, "node-a", epoch, now,
					now.plusSeconds(1), RunOutcome.ERROR, "IllegalStateException: no disk", null, null, false)));
			written.put("run", fields(database.getCollection("shapes_runs").find().into(new java.util.ArrayList<>())));
			written.put("lease fires",
					fields(database.getCollection("shapes_leases")
						.find(Filters.eq("_id", "default"))
						.first()
						.getList("fires", Document.class)));
		}
		Map<String, Set<String>> documented = documented();
		assertThat(documented.keySet()).as("rows of the guide's table").containsAll(written.keySet());
		written.forEach((kind, fields) -> assertThat(documented.get(kind)).as("%s fields in %s", kind, GUIDE)
			.containsExactlyInAnyOrderElementsOf(fields));
	}

	private static Set<String> fields(List<Document> documents) {
		Set<String> names = new TreeSet<>();
		documents.forEach((d) -> names.addAll(d.keySet()));
		names.remove("_id");
		return names;
	}

	/**
	 * The guide's rows: {@code | kind | ... | `a`, `b`, ... |}, the kind in the first
	 * cell.
	 */
	private static Map<String, Set<String>> documented() throws Exception {
		Map<String, Set<String>> rows = new LinkedHashMap<>();
		Matcher row = Pattern.compile(
				"(?m)^\\| (lease|lease fires|roster|roster members|roster changes|roster placement changes|roster assignments|partitions|node|run) \\|"
						+ "[^|]*\\|([^|]*)\\|$")
			.matcher(Files.readString(GUIDE));
		while (row.find()) {
			Set<String> names = new TreeSet<>();
			Matcher name = Pattern.compile("`([A-Za-z]+)`").matcher(row.group(2));
			while (name.find()) {
				names.add(name.group(1));
			}
			rows.put(row.group(1), names);
		}
		return rows;
	}

}
