package dev.membership.nemesis;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoDatabase;
import org.bson.Document;

/**
 * The MongoDB stand-in (the sample's standalone embedded {@code mongo-java-server}), for
 * the network's faults: it has no triggers, so the fenced writes are checked by what they
 * left: each target's final fence is no older than any epoch whose write a node's journal
 * says was accepted (a write of an older epoch after a newer one, or an acknowledged
 * write lost, leaves it older; one overwritten by the newest epoch since is not seen).
 * Frozen, it is its whole process.
 */
final class MongoStandIn extends SampleDatabase {

	private static final String DATABASE = "membership-sample";

	MongoStandIn(Path jar, Path directory, Path logs, int port) throws IOException {
		super(jar, directory, logs, port, List.of("--sample.embedded-mongo.standalone=true",
				"--sample.embedded-mongo.port=" + port, "--sample.embedded-mongo.directory=" + directory));
	}

	@Override
	List<String> nodeArgs(String host, int port) {
		return List.of("--spring.mongodb.uri=mongodb://" + host + ":" + port + "/" + DATABASE);
	}

	@Override
	void checkWrites(Checker checker) {
		try (MongoClient client = client()) {
			MongoDatabase db = client.getDatabase(DATABASE);
			Map<String, Long> fences = new HashMap<>();
			for (Document state : db.getCollection("housekeeping_state").find()) {
				fences.put("housekeeping_state/" + state.get("_id"), fence(state, "default"));
			}
			for (Document state : db.getCollection("tenant_checkpoints").find()) {
				String id = String.valueOf(state.get("_id"));
				fences.put("tenant_checkpoints/" + id, fence(state, "tenants#" + id.replace("partition-", "")));
			}
			if (checker.acked().isEmpty() && fencedWrites() > 0) {
				checker.violations().add("journal: no node told of any of the " + fencedWrites() + " accepted writes");
			}
			checker.finalFences(fences, checker.acked());
		}
	}

	private static long fence(Document state, String unit) {
		Object fences = state.get("_fence");
		Object fence = (fences instanceof Document d) ? d.get(unit) : null;
		return (fence instanceof Number n) ? n.longValue() : -1;
	}

	@Override
	long runs() {
		try (MongoClient client = client()) {
			MongoDatabase db = client.getDatabase(DATABASE);
			return db.getCollection("housekeeping_runs").countDocuments()
					+ db.getCollection("tenant_runs").countDocuments();
		}
	}

	@Override
	long fencedWrites() {
		try (MongoClient client = client()) {
			MongoDatabase db = client.getDatabase(DATABASE);
			return db.getCollection("housekeeping_runs").countDocuments(new Document("accepted", true))
					+ db.getCollection("tenant_runs").countDocuments(new Document("accepted", true));
		}
	}

	@Override
	void signal(String signal) {
		Shell.run("kill", "-" + signal, Long.toString(process().pid()));
	}

	@Override
	public void close() throws InterruptedException {
		Shell.tryRun("kill", "-CONT", Long.toString(process().pid()));
		super.close();
	}

	private MongoClient client() {
		return MongoClients.create("mongodb://127.0.0.1:" + this.port);
	}

}
